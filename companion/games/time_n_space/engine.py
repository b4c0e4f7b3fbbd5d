"""The pure rules engine of Time 'n' Space: setups, ``apply(state, action)``, and final scoring.

``apply`` returns :class:`~companion.rules.outcome.Accepted` (new state and past-tense
events) or :class:`~companion.rules.outcome.Rejected` (a reason a player understands and
the rulebook section it comes from): every broken rule inside is raised with
:func:`~companion.rules.outcome.refuse`, and ``apply`` is :func:`~companion.rules.outcome.checked`.
It never reads a clock, never draws global randomness and does no I/O. The states a game starts
from are built by :mod:`.setup`; whatever the table drew (a moon's top tile, an ocher tile) arrives
as part of an action and is checked against what the pile can still hold.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.time_n_space import model as M
from companion.games.time_n_space.components import COLORS, Tile
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
    place_word,
    symbol_name,
    tile_words,
    unreachable,
)
from companion.rules.deck import Pile
from companion.rules.outcome import Accepted, IllegalAction, Rejected, checked, refuse
from companion.rules.text import Text, text

# --- small helpers ----------------------------------------------------------------------


def _remove_above(player: PlayerState, color: str, value: int) -> tuple[Order, ...] | None:
    """``above`` without one counter (colour, value), or ``None`` if there is none."""
    wanted = Order(player.name, color, value)
    above = list(player.above)
    if wanted not in above:
        return None
    above.remove(wanted)
    return tuple(above)


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
    if not isinstance(action.orders, tuple) or len(action.orders) != 2:
        refuse(text("Each player picks exactly 2 order counters to start with"), SETUP_FULL)
    if player.ready:  # a correction before the clock: the earlier pick goes back above
        player = orders_back_above(player)
    player = replace(_place_orders(player, action.orders, SETUP_FULL), ready=True)
    return state.with_player(player), [M.StartingOrdersPlaced(player.name, action.orders)]


def orders_back_above(player: PlayerState) -> PlayerState:
    """The player with every order counter of the control center back above it."""
    for bid, i, order in player.placed_orders():
        b = player.building(bid)
        assert b is not None
        player = player.with_building(_put(b, i, None))
        player = replace(player, above=_sorted_orders((*player.above, order)))
    return player


def _sorted_orders(orders: Iterable[Order]) -> tuple[Order, ...]:
    return tuple(sorted(orders, key=lambda o: (COLORS.index(o.color), o.value)))


def _take_ocher(state: GameState, action: M.TakeOcherTile) -> tuple[GameState, list[Any]]:
    """Introductory setup, steps 7 and 8: the random ocher tile covers its building, with the goods on it."""
    player = _player(state, action.player)
    if state.variant != "intro":
        refuse(text("Only the introductory game has players draw an ocher tile"), SETUP_FULL)
    if state.phase != PHASE_SETUP:
        refuse(
            text("The ocher tile is put onto the control center before the master clock starts"), SETUP_INTRO
        )
    cover = player.ocher
    if cover is None:
        refuse(text("Your introductory setup has no random ocher tile"), SETUP_INTRO)
    pool, supply = state.ocher, list(state.supply)
    b = player.building(cover.building)
    assert b is not None
    if cover.tile is not None:  # a correction: the tile drawn before goes back, and its goods
        pool = pool.put(cover.tile)
        for c in b.contents:
            if isinstance(c, Cube):
                supply[COLORS.index(c.color)] += 1
    tile_id = _drawn(state, pool, action.tile, text("the ocher tiles"), stage=3)
    pool = pool.take(tile_id, pile=text("the ocher tiles"))
    tile = state.tile(tile_id)
    assert tile is not None
    contents: list[Any] = [None] * len(tile.stage3.spots)
    for spot in cover.goods:
        color = tile.stage3.spots[spot] if spot < len(contents) else None
        if color is not None and supply[COLORS.index(color)] > 0:
            supply[COLORS.index(color)] -= 1
            contents[spot] = Cube(color)
    built = Building(cover.building, tile.stage3, 3, tile, tuple(contents))
    player = replace(player.with_building(built), ready=True, ocher=replace(cover, tile=tile_id))
    state = replace(state.with_player(player), ocher=pool, supply=tuple(supply))
    return state, [M.OcherTileTaken(player.name, tile_id, cover.building)]


def _drawn(state: GameState, pile: Pile, tile_id: str, where: Text, *, stage: int = 2) -> str:
    """The tile of ``pile`` the table found: ``tile_id``, or an identical tile of its kind that the pile
    holds (identical tiles cannot be told apart at the table); refused when the pile holds none."""
    if tile_id in pile:
        return tile_id
    tile = state.tile(tile_id)
    if tile is None:
        refuse(text("There is no tile {tile} in the box", tile=repr(tile_id)), text("What the table drew"))
    same = next((t for t in pile.kinds() if _identical(state, t, tile)), None)
    if same is not None:
        return same
    pile.take(tile_id, pile=where, name=tile_words(tile, stage))  # refuses, naming the tile in words
    raise AssertionError("unreachable")


def _identical(state: GameState, tile_id: str, tile: Tile) -> bool:
    other = state.tile(tile_id)
    return other is not None and (other.stage2, other.stage3) == (tile.stage2, tile.stage3)


def _start(state: GameState, action: M.StartGame) -> tuple[GameState, list[Any]]:
    if state.phase != PHASE_SETUP:
        refuse(text("The game has already started"), PLAYING)
    waiting = tuple(p.name for p in state.players if not p.ready)
    if waiting and state.variant == "intro":
        refuse(
            text(
                "{players} still must tell the hub which ocher tile they drew before the clock starts",
                players=waiting,
            ),
            SETUP_INTRO,
        )
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
    index = state.moons.index(here)
    unseen = state.unseen
    if choice.research:
        if player.research is not None:
            refuse(text("Your research plant is occupied; build its tile before taking another"), SPACESHIP)
        top = _top_tile(state, here, choice.tile, needed=True)
        assert top is not None
        unseen = unseen.take(top, pile=text("the moons' piles"))
        state = state.with_player(replace(player, research=state.tile(top)))
        new_pile = pile[1:]
        events.append(M.TileTaken(name, here, top))
    else:
        seen = _top_tile(state, here, choice.tile, needed=False)
        new_pile = (*pile[1:], seen)
        events.append(M.TilePutUnder(name, here, seen))
    piles = tuple(new_pile if i == index else p for i, p in enumerate(state.piles))
    return replace(state, piles=piles, unseen=unseen)


def _top_tile(state: GameState, moon: str, given: str | None, *, needed: bool) -> str | None:
    """The tile on top at ``moon``: the one the hub knows (a tile given must be that one, or identical),
    else the one the table found there (checked against what the pile can still hold)."""
    top = state.pile(moon)[0]
    if top is not None:
        known = state.tile(top)
        if given is not None and given != top and (known is None or not _identical(state, given, known)):
            shown = tile_words(known) if known is not None else top
            refuse(
                text("The top tile at {moon} is {tile}", moon=place_word(state, moon), tile=shown),
                text("What the table drew"),
            )
        return top
    if given is None:
        if needed:
            refuse(
                text(
                    "Which tile lies on top at {moon}? Choose it on your phone before you lift the sandtimer",
                    moon=place_word(state, moon),
                ),
                SPACESHIP,
            )
        return None
    return _drawn(
        state, state.possible_tops(moon), given, text("the pile at {moon}", moon=place_word(state, moon))
    )


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
    M.TakeOcherTile: _take_ocher,
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
