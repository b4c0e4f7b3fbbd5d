"""The pure rules engine of Time 'n' Space: setups, ``apply(state, action)``, and final scoring.

``apply`` returns :class:`~companion.rules.outcome.Accepted` (new state and past-tense
events) or :class:`~companion.rules.outcome.Rejected` (a reason a player understands and
the rulebook section it comes from): every broken rule inside is raised with
:func:`~companion.rules.outcome.refuse`, and ``apply`` is :func:`~companion.rules.outcome.checked`.
It never reads a clock, never draws global randomness and does no I/O: the full setup
shuffles with a seed kept in the state (:mod:`.hubdeck`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.time_n_space import model as M
from companion.games.time_n_space.components import COLORS, Components
from companion.games.time_n_space.hubdeck import dealt_piles
from companion.games.time_n_space.model import (
    PHASE_ENDING,
    PHASE_OVER,
    PHASE_RUNNING,
    PHASE_SETUP,
    RESEARCH,
    SHIP,
    Building,
    Collected,
    Cube,
    GameState,
    Order,
    PlayerState,
    Timer,
)
from companion.games.time_n_space.scoring import RecordTextError
from companion.games.time_n_space.words import (
    BEAM,
    BUILDING_WORDS,
    END,
    GENERAL,
    PLAYING,
    PRODUCTION,
    REASON_CLOCK_OVER,
    REASON_NOT_STARTED,
    REASON_NOT_THROUGH,
    RESEARCH_RULE,
    SETUP_FULL,
    SETUP_INTRO,
    SPACESHIP,
    TRADING,
    UPGRADING,
    color_word,
    counter_text,
    symbol_name,
    unreachable,
)
from companion.rules.outcome import Accepted, IllegalAction, Rejected, checked, refuse
from companion.rules.text import Text, text


class SetupError(RecordTextError):
    """The table asked for a setup the rules do not allow (e.g. 5 players); its message is a Text."""


# --- setups -----------------------------------------------------------------------------


def _check_players(players: Sequence[str]) -> list[str]:
    names = list(players)
    if len(names) not in (3, 4):
        raise SetupError(
            text("Time 'n' Space is played by 3 or 4 players, not {players}", players=len(names))
        )
    if any(not isinstance(n, str) or not n.strip() for n in names):
        raise SetupError(text("every player needs a non-empty name"))
    if len(set(names)) != len(names):
        raise SetupError(text("two players have the same name"))
    return names


def _counters(name: str, table: tuple[tuple[str, tuple[int, ...]], ...]) -> tuple[Order, ...]:
    counters = [Order(name, color, v) for color, values in table for v in values]
    return tuple(sorted(counters, key=lambda o: (COLORS.index(o.color), o.value)))


def _new_player(name: str, seat: int, comps: Components, table: Any, *, ready: bool) -> PlayerState:
    buildings = tuple(
        Building(bid, spec, 1, None, (None,) * len(spec.spots)) for bid, spec in comps.buildings
    )
    planet = f"planet-{seat}"
    return PlayerState(
        name=name,
        planet=planet,
        buildings=buildings,
        research=None,
        above=_counters(name, table),
        collected=(),
        bonus=(),
        ship=planet,
        timers=tuple(Timer() for _ in range(comps.timers_per_player)),
        ready=ready,
    )


def _remove_above(player: PlayerState, color: str, value: int) -> tuple[Order, ...] | None:
    """``above`` without one counter (colour, value), or ``None`` if there is none."""
    wanted = Order(player.name, color, value)
    above = list(player.above)
    if wanted not in above:
        return None
    above.remove(wanted)
    return tuple(above)


def setup_intro(players: Sequence[str], *, components: Components) -> GameState:
    """Introductory setup ("Setup for the Introductory Game").

    Value-1 counters only (12 per player), three stage III tiles per player as the data
    file lists them, 2 pre-placed orders and 2 goods per player, no tiles at the moons and
    no bonus counters. Players sit in the order given; the N-th player owns ``planet-N``.
    ``components`` is the game's data (``GAME.data``, or a table's own file read with
    :func:`~companion.games.time_n_space.components.load_components`).
    """
    names = _check_players(players)
    board = components.board(len(names))
    supply = [components.goods_per_color] * len(COLORS)
    built = []
    for seat, name in enumerate(names, start=1):
        p = _new_player(name, seat, components, components.counters_intro, ready=True)
        layout = components.intro_seats[seat - 1]
        for bid, tid in layout.tiles:
            tile = components.tile(tid)
            p = p.with_building(Building(bid, tile.stage3, 3, tile, (None,) * len(tile.stage3.spots)))
        for spot in layout.orders:
            above = _remove_above(p, spot.color, spot.value)
            if above is None:
                raise SetupError(
                    text(
                        "the introductory setup of seat {seat} needs a {counter} counter it does not have",
                        seat=seat,
                        counter=counter_text(spot.color, spot.value),
                    )
                )
            b = p.building(spot.building)
            assert b is not None
            p = replace(p, above=above).with_building(_put(b, spot.spot, Order(name, spot.color, spot.value)))
        for spot in layout.goods:
            b = p.building(spot.building)
            assert b is not None
            p = p.with_building(_put(b, spot.spot, Cube(spot.color)))
            supply[COLORS.index(spot.color)] -= 1
        built.append(p)
    if min(supply) < 0:
        raise SetupError(text("the introductory setup places more goods than the supply holds"))
    return GameState(
        variant="intro",
        players=tuple(built),
        supply=tuple(supply),
        goods_total=components.goods_per_color * len(COLORS),
        moons=board.moons,
        wormholes=board.wormholes,
        piles=tuple(() for _ in board.moons),
        planet_bonus=tuple(None for _ in names),
        phase=PHASE_SETUP,
    )


def setup_full(players: Sequence[str], *, seed: int, components: Components) -> GameState:
    """Full setup ("Setup for the Full Game").

    The tiles are shuffled with ``seed`` into one pile of equal height per moon (stage II
    up), one bonus counter lies on every planet, every player has 24 counters above the
    control center and still has to pick 2 starting orders (:class:`PlaceStartingOrders`).
    ``components`` is the game's data, as for :func:`setup_intro`.
    """
    names = _check_players(players)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise SetupError(text("the seed must be a whole number"))
    board = components.board(len(names))
    piles = dealt_piles(components.tiles, len(board.moons), seed)
    return GameState(
        variant="full",
        players=tuple(
            _new_player(n, seat, components, components.counters_full, ready=False)
            for seat, n in enumerate(names, start=1)
        ),
        supply=(components.goods_per_color,) * len(COLORS),
        goods_total=components.goods_per_color * len(COLORS),
        moons=board.moons,
        wormholes=board.wormholes,
        piles=piles,
        planet_bonus=tuple(components.bonus_values[: len(names)]),
        phase=PHASE_SETUP,
        seed=seed,
    )


# --- small helpers ----------------------------------------------------------------------


def _put(building: Building, spot: int, content: Any) -> Building:
    contents = list(building.contents)
    contents[spot] = content
    return replace(building, contents=tuple(contents))


def _player(state: GameState, name: Any) -> PlayerState:
    player = state.player(name) if isinstance(name, str) else None
    if player is None:
        refuse(text("There is no player {player} at this table", player=repr(name)), PLAYING)
    return player


def _timer(player: PlayerState, index: Any) -> Timer:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(player.timers):
        refuse(
            text(
                "{player} has sandtimers 0 to {last}; there is no sandtimer {index}",
                player=player.name,
                last=len(player.timers) - 1,
                index=repr(index),
            ),
            PLAYING,
        )
    return player.timers[index]


def _set_timer(player: PlayerState, index: int, timer: Timer) -> PlayerState:
    timers = list(player.timers)
    timers[index] = timer
    return replace(player, timers=tuple(timers))


def _symbol_name(symbol: str) -> Text:
    return symbol_name(symbol)


def _colors() -> tuple[Text | str, ...]:
    return tuple(color_word(c) for c in COLORS)


def _check_color_value(color: Any, value: Any, rule: Text) -> None:
    if color not in COLORS:
        refuse(
            text("{color} is not an order colour; use {colors}", color=repr(color), colors=_colors()), rule
        )
    if not isinstance(value, int) or isinstance(value, bool):
        refuse(text("the value of an order must be a whole number, not {value}", value=repr(value)), rule)


def _spot_ref(ref: Any, rule: Text) -> tuple[str, int]:
    if not (isinstance(ref, tuple) and len(ref) == 2 and isinstance(ref[0], str)):
        refuse(text("{spot} does not name a spot as (building, spot)", spot=repr(ref)), rule)
    if not isinstance(ref[1], int) or isinstance(ref[1], bool):
        refuse(text("{spot} does not name a spot as (building, spot)", spot=repr(ref)), rule)
    return ref[0], ref[1]


def _place_orders(player: PlayerState, placements: Any, rule: Text) -> PlayerState:
    """Move own counters from above the control center onto free order spaces."""
    if not isinstance(placements, tuple):
        refuse(text("the orders to place must be given as a list"), rule)
    for item in placements:
        if not isinstance(item, M.OrderPlacement):
            refuse(text("{item} is not an order placement", item=repr(item)), rule)
        _check_color_value(item.color, item.value, rule)
        above = _remove_above(player, item.color, item.value)
        if above is None:
            refuse(
                text(
                    "You have no {counter} order counter left above your control center",
                    counter=counter_text(item.color, item.value),
                ),
                rule,
            )
        b = player.building(item.building) if isinstance(item.building, str) else None
        if b is None:
            refuse(
                text("There is no building {building} on your control center", building=repr(item.building)),
                rule,
            )
        if b.type == "trading":
            refuse(
                text(
                    "You may never place order counters on trading centers; use a free production or beam spot"
                ),
                TRADING,
            )
        if (
            not isinstance(item.spot, int)
            or isinstance(item.spot, bool)
            or not 0 <= item.spot < len(b.contents)
        ):
            refuse(text("Building {building} has no spot {spot}", building=b.id, spot=repr(item.spot)), rule)
        if b.contents[item.spot] is not None:
            refuse(
                text(
                    "Spot {spot} of building {building} is occupied; orders go only onto free order spaces",
                    spot=item.spot,
                    building=b.id,
                ),
                TRADING,
            )
        player = replace(player, above=above).with_building(
            _put(b, item.spot, Order(player.name, item.color, item.value))
        )
    return player


def _all_timers_down(state: GameState) -> bool:
    return all(t.symbol is None for p in state.players for t in p.timers)


def _maybe_end(state: GameState, events: list[Any]) -> GameState:
    if state.phase == PHASE_ENDING and _all_timers_down(state):
        events.append(M.GameEnded())
        return replace(state, phase=PHASE_OVER)
    return state


# --- handlers ---------------------------------------------------------------------------


def _starting_orders(state: GameState, action: M.PlaceStartingOrders) -> tuple[GameState, list[Any]]:
    player = _player(state, action.player)
    if state.variant != "full":
        refuse(
            text("Only the full game has players pick starting orders; the introductory setup places them"),
            SETUP_INTRO,
        )
    if state.phase != PHASE_SETUP:
        refuse(text("Starting orders are placed before the master clock starts"), SETUP_FULL)
    if player.ready:
        refuse(text("You already placed your 2 starting orders"), SETUP_FULL)
    if not isinstance(action.orders, tuple) or len(action.orders) != 2:
        refuse(text("Each player picks exactly 2 order counters to start with"), SETUP_FULL)
    player = replace(_place_orders(player, action.orders, SETUP_FULL), ready=True)
    return state.with_player(player), [M.StartingOrdersPlaced(player.name, action.orders)]


def _start(state: GameState, action: M.StartGame) -> tuple[GameState, list[Any]]:
    if state.phase != PHASE_SETUP:
        refuse(text("The game has already started"), PLAYING)
    waiting = tuple(p.name for p in state.players if not p.ready)
    if waiting:
        refuse(
            text("{players} still must place 2 starting orders before the clock starts", players=waiting),
            SETUP_FULL,
        )
    return replace(state, phase=PHASE_RUNNING), [M.GameStarted()]


def _place_timer(state: GameState, action: M.PlaceTimer) -> tuple[GameState, list[Any]]:
    player, symbol, destination = _check_placement(state, action)
    player = _set_timer(player, action.timer, Timer(symbol, True, destination))
    return state.with_player(player), [M.TimerPlaced(player.name, action.timer, symbol, destination)]


def _check_placement(state: GameState, action: M.PlaceTimer) -> tuple[PlayerState, str, str | None]:
    """The player, symbol and destination of a legal placement; refused if it is not legal.

    Only checks: :func:`legal_placements` asks it without making the placement.
    """
    player = _player(state, action.player)
    timer = _timer(player, action.timer)
    if state.phase == PHASE_SETUP:
        refuse(REASON_NOT_STARTED, SETUP_INTRO if state.variant == "intro" else SETUP_FULL)
    if state.phase in (PHASE_ENDING, PHASE_OVER):
        refuse(REASON_CLOCK_OVER, END)
    if timer.symbol is not None:
        if timer.running:
            refuse(
                text("This sandtimer is still running on {symbol}", symbol=_symbol_name(timer.symbol)),
                GENERAL,
            )
        refuse(
            text("This sandtimer still stands on {symbol}; lift it first", symbol=_symbol_name(timer.symbol)),
            GENERAL,
        )
    symbol = action.symbol
    if symbol is None:
        refuse(text("You may never start a sandtimer unless you place it on a time symbol at once"), GENERAL)
    if not isinstance(symbol, str):
        refuse(text("{symbol} is not a time symbol", symbol=repr(symbol)), GENERAL)
    if ":" in symbol:
        owner, symbol = symbol.split(":", 1)
        if owner != player.name:
            refuse(
                text(
                    "You may only place a sandtimer on your own control center or spaceship, "
                    "never on another player's"
                ),
                GENERAL,
            )
    if symbol not in (SHIP, RESEARCH) and player.building(symbol) is None:
        refuse(
            text("There is no time symbol {symbol} on your control center or spaceship", symbol=repr(symbol)),
            GENERAL,
        )
    if any(t.symbol == symbol for t in player.timers):
        refuse(
            text(
                "Each time symbol holds one sandtimer at a time; {symbol} is occupied",
                symbol=_symbol_name(symbol),
            ),
            GENERAL,
        )
    if symbol == RESEARCH and player.research is None:
        refuse(
            text("Your research plant is empty; take a tile at a moon before placing a sandtimer here"),
            RESEARCH_RULE,
        )
    destination = action.destination
    if destination is not None and symbol != SHIP:
        refuse(text("Only a sandtimer on your spaceship takes a destination"), SPACESHIP)
    if symbol == SHIP and destination is not None:
        if destination == player.ship:
            destination = None
        elif destination not in state.neighbours(player.ship):
            refuse(unreachable(state, player.ship, destination), SPACESHIP)
    return player, symbol, destination


def _sand_ran_out(state: GameState, action: M.SandRanOut) -> tuple[GameState, list[Any]]:
    player = _player(state, action.player)
    timer = _timer(player, action.timer)
    if timer.symbol is None or not timer.running:
        refuse(text("This sandtimer is not running on a time symbol"), GENERAL)
    player = _set_timer(player, action.timer, replace(timer, running=False))
    return state.with_player(player), [M.SandRanThrough(player.name, action.timer)]


def _lift(state: GameState, action: M.LiftTimer) -> tuple[GameState, list[Any]]:
    player = _player(state, action.player)
    timer = _timer(player, action.timer)
    if timer.symbol is None:
        refuse(text("This sandtimer is not standing on a time symbol"), GENERAL)
    if timer.running:
        refuse(REASON_NOT_THROUGH, GENERAL)
    symbol = timer.symbol
    player = _set_timer(player, action.timer, Timer())
    state = state.with_player(player)
    events: list[Any] = [M.TimerLifted(player.name, action.timer, symbol)]
    choice = action.choice
    if symbol == SHIP:
        state = _ship_action(state, player.name, timer.destination, choice, events)
    elif symbol == RESEARCH:
        state = _research_action(state, player.name, choice, events)
    else:
        state = _building_action(state, player.name, symbol, choice, events)
    return _maybe_end(state, events), events


def _forfeit(state: GameState, player: str, symbol: str, events: list[Any]) -> GameState:
    events.append(M.ActionForfeited(player, symbol))
    return state


def _ship_action(
    state: GameState, name: str, destination: str | None, choice: Any, events: list[Any]
) -> GameState:
    player = _player(state, name)
    if destination is not None:
        player = replace(player, ship=destination)
        state = state.with_player(player)
        events.append(M.ShipArrived(name, destination))
    here = player.ship
    owner = state.owner_of(here)
    if owner is not None and owner.name == name:
        if choice is not None:
            refuse(text("Nothing happens at your own planet"), SPACESHIP)
        return _forfeit(state, name, SHIP, events)
    if owner is not None:
        if choice is None:
            return _forfeit(state, name, SHIP, events)
        if not isinstance(choice, M.Deliver):
            refuse(text("At another player's planet you can only fulfil orders"), SPACESHIP)
        return _deliver(state, name, owner.name, choice, events)
    # at a moon
    if state.variant == "intro":
        if choice is not None:
            refuse(text("In the introductory game there is nothing to do at a moon"), SPACESHIP)
        return _forfeit(state, name, SHIP, events)
    pile = state.pile(here)
    if choice is None:
        if len(pile) > 1:
            refuse(
                text(
                    "At a moon you must take the top tile into your research plant or put it under the pile; "
                    "you may only skip this when one or no tile is left there"
                ),
                SPACESHIP,
            )
        return _forfeit(state, name, SHIP, events)
    if not isinstance(choice, M.MoonTile):
        refuse(text("At a moon you can only take the top tile or put it under its pile"), SPACESHIP)
    if not pile:
        refuse(text("There is no building tile left at this moon"), SPACESHIP)
    top, rest = pile[0], pile[1:]
    index = state.moons.index(here)
    if choice.research:
        if player.research is not None:
            refuse(text("Your research plant is occupied; build its tile before taking another"), SPACESHIP)
        state = state.with_player(replace(player, research=top))
        new_pile = rest
        events.append(M.TileTaken(name, here, top.id))
    else:
        new_pile = rest + (top,)
        events.append(M.TilePutUnder(name, here, top.id))
    piles = tuple(new_pile if i == index else p for i, p in enumerate(state.piles))
    return replace(state, piles=piles)


def _deliver(state: GameState, name: str, owner_name: str, choice: M.Deliver, events: list[Any]) -> GameState:
    if not isinstance(choice.orders, tuple):
        refuse(text("the orders to fulfil must be given as a list"), SPACESHIP)
    for item in choice.orders:
        if not isinstance(item, M.Delivery):
            refuse(text("{item} is not an order to fulfil", item=repr(item)), SPACESHIP)
        _check_color_value(item.color, item.value, SPACESHIP)
        deliverer = _player(state, name)
        owner = _player(state, owner_name)
        candidates = [
            (bid, i) for bid, i, o in owner.placed_orders() if (o.color, o.value) == (item.color, item.value)
        ]
        if not candidates:
            refuse(
                text(
                    "{player} shows no {counter} order on the control center",
                    player=owner_name,
                    counter=counter_text(item.color, item.value),
                ),
                SPACESHIP,
            )
        if item.space is not None:
            space = _spot_ref(item.space, SPACESHIP)
            if space not in candidates:
                refuse(
                    text(
                        "{player} has no {counter} order on {building} spot {spot}",
                        player=owner_name,
                        counter=counter_text(item.color, item.value),
                        building=space[0],
                        spot=space[1],
                    ),
                    SPACESHIP,
                )
        else:
            space = state.handover_pick(owner, item.color, item.value) or candidates[0]
        beam_cubes = [
            (b.id, i)
            for b in deliverer.buildings
            if b.type == "beam"
            for i, c in enumerate(b.contents)
            if c == Cube(item.color)
        ]
        if item.cubes is None:
            cubes = beam_cubes[: item.value]
            if len(cubes) < item.value:
                refuse(
                    text(
                        "You need {needed} {color} goods in your beam stations to fulfil that order; you have {have}",
                        needed=item.value,
                        color=color_word(item.color),
                        have=len(beam_cubes),
                    ),
                    SPACESHIP,
                )
        else:
            if not isinstance(item.cubes, tuple):
                refuse(text("the cubes to deliver must be given as a list"), SPACESHIP)
            cubes = [_spot_ref(ref, SPACESHIP) for ref in item.cubes]
            if len(set(cubes)) != len(cubes) or len(cubes) != item.value:
                refuse(
                    text(
                        "That order needs exactly {needed} different {color} cubes",
                        needed=item.value,
                        color=color_word(item.color),
                    ),
                    SPACESHIP,
                )
            for ref in cubes:
                if ref not in beam_cubes:
                    refuse(
                        text(
                            "You can only deliver {color} goods from your own beam stations; "
                            "{building} spot {spot} has none",
                            color=color_word(item.color),
                            building=ref[0],
                            spot=ref[1],
                        ),
                        SPACESHIP,
                    )
        for bid, i in cubes:
            b = deliverer.building(bid)
            assert b is not None
            deliverer = deliverer.with_building(_put(b, i, None))
        ob = owner.building(space[0])
        assert ob is not None
        owner = owner.with_building(_put(ob, space[1], None))
        deliverer = replace(
            deliverer, collected=deliverer.collected + (Collected(item.color, item.value, owner_name),)
        )
        supply = list(state.supply)
        supply[COLORS.index(item.color)] += item.value
        events.append(M.OrderFulfilled(name, owner_name, item.color, item.value, space))
        index = [p.name for p in state.players].index(owner_name)
        bonus = state.planet_bonus[index]
        planet_bonus = state.planet_bonus
        if bonus is not None:
            deliverer = replace(deliverer, bonus=deliverer.bonus + (bonus,))
            planet_bonus = tuple(None if i == index else v for i, v in enumerate(planet_bonus))
            events.append(M.BonusTaken(name, owner_name, bonus))
        state = replace(
            state.with_player(deliverer).with_player(owner), supply=tuple(supply), planet_bonus=planet_bonus
        )
    return state


def _research_action(state: GameState, name: str, choice: Any, events: list[Any]) -> GameState:
    player = _player(state, name)
    if choice is None:
        return _forfeit(state, name, RESEARCH, events)
    if isinstance(choice, M.Upgrade):
        refuse(text("Only a stage II building can be upgraded, not the research plant"), UPGRADING)
    if not isinstance(choice, M.Build):
        refuse(text("The research plant builds its waiting tile onto a free stage I building"), RESEARCH_RULE)
    tile = player.research
    if tile is None:
        refuse(text("Your research plant is empty"), RESEARCH_RULE)
    target = player.building(choice.building) if isinstance(choice.building, str) else None
    if target is None:
        refuse(
            text("There is no building {building} on your control center", building=repr(choice.building)),
            RESEARCH_RULE,
        )
    if target.stage != 1:
        refuse(text("You can never build over a stage II or stage III building"), RESEARCH_RULE)
    if not target.is_unoccupied():
        refuse(
            text(
                "Building {building} is occupied by goods or orders; only free stage I buildings can be built over",
                building=target.id,
            ),
            RESEARCH_RULE,
        )
    if any(t.symbol == target.id for t in player.timers):
        refuse(
            text(
                "A sandtimer stands on building {building}; a tile cannot be built under it",
                building=target.id,
            ),
            RESEARCH_RULE,
        )
    built = Building(target.id, tile.stage2, 2, tile, (None,) * len(tile.stage2.spots))
    player = replace(player.with_building(built), research=None)
    events.append(M.BuildingBuilt(name, target.id, tile.id))
    return state.with_player(player)


def _building_action(state: GameState, name: str, bid: str, choice: Any, events: list[Any]) -> GameState:
    player = _player(state, name)
    building = player.building(bid)
    assert building is not None  # a timer only stands on an existing building
    if choice is None:
        return _forfeit(state, name, bid, events)
    if isinstance(choice, M.Upgrade):
        if building.stage != 2 or building.tile is None:
            refuse(text("Only a stage II building can be upgraded to stage III"), UPGRADING)
        if not building.is_unoccupied():
            refuse(
                text("Only an unoccupied stage II building (no goods, no orders) can be upgraded"), UPGRADING
            )
        spec = building.tile.stage3
        player = player.with_building(Building(bid, spec, 3, building.tile, (None,) * len(spec.spots)))
        events.append(M.BuildingUpgraded(name, bid))
        return state.with_player(player)
    expected: type[M.Produce] | type[M.Beam] | type[M.Trade] = {
        "production": M.Produce,
        "beam": M.Beam,
        "trading": M.Trade,
    }[building.type]
    if not isinstance(choice, expected):
        rule = {"production": PRODUCTION, "beam": BEAM, "trading": TRADING}[building.type]
        doing = {
            "production": text("produce goods"),
            "beam": text("beam goods"),
            "trading": text("place orders"),
        }[building.type]
        refuse(
            text(
                "Building {building} is a {kind}; its action is to {action}",
                building=bid,
                kind=BUILDING_WORDS[building.type],
                action=doing,
            ),
            rule,
        )
    if isinstance(choice, M.Produce):
        return _produce(state, player, building, choice, events)
    if isinstance(choice, M.Beam):
        return _beam(state, player, building, choice, events)
    return _trade(state, player, building, choice, events)


def _produce(
    state: GameState, player: PlayerState, b: Building, choice: M.Produce, events: list[Any]
) -> GameState:
    free = b.free_spots()
    if choice.spots is None:
        spots = free
    else:
        if not isinstance(choice.spots, tuple):
            refuse(text("the spots to produce on must be given as a list"), PRODUCTION)
        spots = list(choice.spots)
        if len(set(spots)) != len(spots):
            refuse(text("Each spot produces at most one cube"), PRODUCTION)
        for i in spots:
            if i not in free:
                refuse(
                    text(
                        "Spot {spot} of production plant {building} is not a free spot",
                        spot=repr(i),
                        building=b.id,
                    ),
                    PRODUCTION,
                )
    supply = list(state.supply)
    made = []
    for i in spots:
        color = b.spec.spots[i]
        assert color is not None
        k = COLORS.index(color)
        if supply[k] > 0:
            supply[k] -= 1
            b = _put(b, i, Cube(color))
            made.append(color)
    events.append(M.GoodsProduced(player.name, b.id, tuple(made)))
    return replace(state.with_player(player.with_building(b)), supply=tuple(supply))


def _beam(
    state: GameState, player: PlayerState, station: Building, choice: M.Beam, events: list[Any]
) -> GameState:
    if not isinstance(choice.cubes, tuple):
        refuse(text("the cubes to beam must be given as a list"), BEAM)
    free = station.free_spots()
    if len(choice.cubes) > len(free):
        refuse(
            text(
                "Beam station {building} has only {count} free spot",
                "Beam station {building} has only {count} free spots",
                building=station.id,
                count=len(free),
            ),
            BEAM,
        )
    refs = [_spot_ref(ref, BEAM) for ref in choice.cubes]
    if len(set(refs)) != len(refs):
        refuse(text("Each cube can be beamed only once"), BEAM)
    colors = []
    for slot, (bid, i) in zip(free, refs, strict=False):
        source = player.building(bid)
        if source is None or source.type != "production":
            refuse(
                text(
                    "You can only beam goods from your production plants; {building} is not one",
                    building=repr(bid),
                ),
                BEAM,
            )
        if not 0 <= i < len(source.contents) or not isinstance(source.contents[i], Cube):
            refuse(
                text(
                    "There is no goods cube on production plant {building} spot {spot}", building=bid, spot=i
                ),
                BEAM,
            )
        cube = source.contents[i]
        assert isinstance(cube, Cube)
        player = player.with_building(_put(source, i, None))
        station = _put(station, slot, cube)
        colors.append(cube.color)
    events.append(M.GoodsBeamed(player.name, station.id, tuple(colors)))
    return state.with_player(player.with_building(station))


def _trade(
    state: GameState, player: PlayerState, center: Building, choice: M.Trade, events: list[Any]
) -> GameState:
    if not isinstance(choice.orders, tuple):
        refuse(text("the orders to place must be given as a list"), TRADING)
    if len(choice.orders) > center.spec.capacity:
        refuse(
            text(
                "Trading center {building} places at most {count} order",
                "Trading center {building} places at most {count} orders",
                building=center.id,
                count=center.spec.capacity,
            ),
            TRADING,
        )
    player = _place_orders(player, choice.orders, TRADING)
    events.append(M.OrdersPlaced(player.name, choice.orders))
    return state.with_player(player)


def _park(state: GameState, action: M.ParkTimer) -> tuple[GameState, list[Any]]:
    player = _player(state, action.player)
    timer = _timer(player, action.timer)
    if timer.symbol is None:
        return state, [M.TimerParked(player.name, action.timer)]
    state, events = _lift(state, M.LiftTimer(action.player, action.timer, None))
    events.append(M.TimerParked(player.name, action.timer))
    return state, events


def _together(state: GameState, action: M.LiftTogether) -> tuple[GameState, list[Any]]:
    owner = _player(state, action.owner)
    if not isinstance(action.lifts, tuple) or not action.lifts:
        refuse(
            text("List the sandtimers lifted together, in the order the planet's owner decides"), SPACESHIP
        )
    events: list[Any] = []
    for lift in action.lifts:
        if not isinstance(lift, M.LiftTimer):
            refuse(text("{lift} is not a lifted sandtimer", lift=repr(lift)), SPACESHIP)
        player = _player(state, lift.player)
        timer = _timer(player, lift.timer)
        target = timer.destination or player.ship
        if timer.symbol != SHIP or target != owner.planet or player.name == owner.name:
            refuse(
                text(
                    "Only spaceships of other players arriving at {player}'s planet wait for its owner's decision",
                    player=owner.name,
                ),
                SPACESHIP,
            )
        state, more = _lift(state, lift)
        events.extend(more)
    return state, events


def _choose_handover(state: GameState, action: M.ChooseHandover) -> tuple[GameState, list[Any]]:
    """The planet's owner picks which of several identical counters goes first ("1. Your spaceship")."""
    owner = _player(state, action.owner)
    b = owner.building(action.building)
    if (
        b is None
        or not 0 <= action.spot < len(b.contents)
        or (b.contents[action.spot] != Order(owner.name, action.color, action.value))
    ):
        refuse(
            text(
                "You show no {counter} order on {building} spot {spot}",
                counter=counter_text(action.color, action.value),
                building=action.building,
                spot=action.spot + 1,
            ),
            SPACESHIP,
        )
    kept = tuple(
        h for h in state.handover if (h.owner, h.color, h.value) != (owner.name, action.color, action.value)
    )
    pick = M.Handover(owner.name, action.color, action.value, action.building, action.spot)
    chosen = M.HandoverChosen(owner.name, action.color, action.value, action.building, action.spot)
    return replace(state, handover=(*kept, pick)), [chosen]


def _clock_expired(state: GameState, action: M.MasterClockExpired) -> tuple[GameState, list[Any]]:
    if state.phase == PHASE_SETUP:
        refuse(text("The master clock has not started yet"), PLAYING)
    if state.phase != PHASE_RUNNING:
        refuse(text("The master clock has already run out"), END)
    events: list[Any] = [M.ClockRanOut()]
    return _maybe_end(replace(state, phase=PHASE_ENDING), events), events


_HANDLERS: dict[type, Any] = {
    M.PlaceStartingOrders: _starting_orders,
    M.StartGame: _start,
    M.PlaceTimer: _place_timer,
    M.SandRanOut: _sand_ran_out,
    M.LiftTimer: _lift,
    M.ParkTimer: _park,
    M.LiftTogether: _together,
    M.ChooseHandover: _choose_handover,
    M.MasterClockExpired: _clock_expired,
}


# --- public API -------------------------------------------------------------------------


@checked
def apply(state: GameState, action: Any) -> Accepted[GameState]:
    """Apply one action: the new state and its events, or a rejection naming the rule broken."""
    handler = _HANDLERS.get(type(action))
    if handler is None:
        refuse(text("{action} is not an action of Time 'n' Space", action=type(action).__name__), PLAYING)
    new_state, events = handler(state, action)
    return Accepted(new_state, tuple(events))


def is_legal(state: GameState, action: Any) -> bool:
    """True when :func:`apply` would accept ``action``."""
    return apply(state, action).ok


def legal_placements(state: GameState, player: str, timer: int) -> list[M.PlaceTimer]:
    """Every :class:`PlaceTimer` the rules allow now for this sandtimer (for a one-tap menu).

    The spaceship appears once to stay and once per wormhole from its location. The
    placements are checked, not made: no action is applied.
    """
    p = state.player(player)
    if p is None:
        return []
    candidates = [M.PlaceTimer(player, timer, SHIP)]
    candidates += [M.PlaceTimer(player, timer, SHIP, d) for d in state.neighbours(p.ship)]
    candidates += [M.PlaceTimer(player, timer, b.id) for b in p.buildings]
    candidates.append(M.PlaceTimer(player, timer, RESEARCH))
    return [c for c in candidates if _is_legal_placement(state, c)]


def _is_legal_placement(state: GameState, action: M.PlaceTimer) -> bool:
    try:
        _check_placement(state, action)
    except IllegalAction:
        return False
    return True


def replay(state: GameState, actions: Iterable[Any]) -> GameState:
    """Fold accepted actions over a setup; a rejected one means the log is broken."""
    for n, action in enumerate(actions, start=1):
        result = apply(state, action)
        if isinstance(result, Rejected):
            raise InvalidRecordError(f"action {n} ({type(action).__name__}) is not legal: {result}")
        state = result.state
    return state


def is_over(state: GameState) -> bool:
    """The master clock ran out and every sandtimer has been lifted ("End of the Game")."""
    return state.phase == PHASE_OVER
