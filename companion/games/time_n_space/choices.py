"""What a flip or a tap does in Time 'n' Space: the player's choices from the phone, else the defaults.

Pure functions of an engine state and an :class:`~.model.Intent` (the choices a player
stored for one sandtimer). They build engine actions and never apply one: the referee
applies each action once, and the menus preview with them. Which of several identical
counters a planet's owner hands over is the owner's standing pick in the state, applied by
the engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from companion.games.time_n_space import model as M
from companion.games.time_n_space.components import COLORS, ORDER_VALUES, Tile
from companion.games.time_n_space.engine import legal_placements
from companion.games.time_n_space.model import (
    PHASE_RUNNING,
    PHASE_SETUP,
    RESEARCH,
    SHIP,
    Building,
    Cube,
    GameState,
    Intent,
    PlayerState,
)
from companion.games.time_n_space.words import (
    BEAM,
    GENERAL,
    RESEARCH_RULE,
    SPACESHIP,
    TRADING,
    color_word,
    place_word,
    tile_words,
    unreachable,
)
from companion.rules.deck import Pile
from companion.rules.outcome import refuse
from companion.rules.text import Text, text

NO_CHOICE = Intent()
"""Every choice left to its default."""

# --- lifting ---------------------------------------------------------------------------------------


def lift_choice(game: GameState, name: str, t: int, intent: Intent = NO_CHOICE) -> M.Choice | None:
    """The choice a lift of this sandtimer carries now: the intent's, else the default; None forfeits."""
    player = game.player(name)
    assert player is not None
    timer = player.timers[t]
    if intent.forfeit or timer.symbol is None:
        return None
    symbol = timer.symbol
    if symbol == SHIP:
        here = timer.destination or player.ship
        owner = game.owner_of(here)
        if owner is not None:
            if owner.name == name:
                return None
            wanted = (
                list(intent.deliver) if intent.deliver is not None else default_deliver(game, player, owner)
            )
            return M.Deliver(tuple(M.Delivery(c, v) for c, v in wanted)) if wanted else None
        if game.variant == "intro":
            return None
        mode = intent.moon or default_moon(game, player, here)
        if mode == "skip":
            return None
        return M.MoonTile(mode == "research", moon_tile(game, here, intent) if mode == "research" else None)
    if symbol == RESEARCH:
        target = intent.build or default_build(player)
        return M.Build(target) if target is not None else None
    b = player.building(symbol)
    if b is None:
        return None
    if intent.upgrade:
        return M.Upgrade()
    if b.type == "production":
        if not any(game.supply_of(c) > 0 for i in b.free_spots() if (c := b.spec.spots[i])):
            return None
        return M.Produce()
    if b.type == "beam":
        cubes = list(intent.beam) if intent.beam is not None else default_beam(game, player, b)
        return M.Beam(tuple(cubes)) if cubes else None
    counters, spaces = trade_selection(player, b, intent)
    if not counters:
        return None
    return M.Trade(
        tuple(M.OrderPlacement(c, v, s[0], s[1]) for (c, v), s in zip(counters, spaces, strict=False))
    )


def waiting_ships(game: GameState, owner: PlayerState) -> list[tuple[str, int]]:
    """(player, timer) of every other player's finished sandtimer on a ship arriving at ``owner``'s planet."""
    return [
        (p.name, t)
        for p in game.players
        if p.name != owner.name
        for t, tm in enumerate(p.timers)
        if tm.symbol == SHIP and not tm.running and (tm.destination or p.ship) == owner.planet
    ]


def together(game: GameState, owner: str, ships: Sequence[tuple[str, int]]) -> M.LiftTogether:
    """Ships lifted at the same moment at ``owner``'s planet, in the order the owner decided.

    Each lifter fulfils by default (what their beam stations pay, the most valuable first)
    among the orders the lifters before them left; the owner's hand-over picks go to the
    first taker of each kind. The lifters' own phone choices are not known to the owner's tap.
    """
    planet = game.player(owner)
    taken: Counter[tuple[str, int]] = Counter()
    lifts = []
    for name, t in ships:
        me = game.player(name)
        choice = None
        if me is not None and planet is not None:  # else the engine names who is missing
            wanted = default_deliver(game, me, planet, taken)
            taken.update(wanted)
            if wanted:
                choice = M.Deliver(tuple(M.Delivery(c, v) for c, v in wanted))
        lifts.append(M.LiftTimer(name, t, choice))
    return M.LiftTogether(owner, tuple(lifts))


# --- placing ---------------------------------------------------------------------------------------


def placement(game: GameState, name: str, t: int, intent: Intent, *, previous: str | None) -> M.PlaceTimer:
    """The next placement: the intent's symbol, else the default (same symbol, else a useful one)."""
    if intent.symbol is not None:
        return M.PlaceTimer(name, t, intent.symbol, intent.destination)
    default = default_placement(game, name, t, previous=previous)
    # nothing is legal: try the obvious one anyway so the engine names the reason
    return default if default is not None else M.PlaceTimer(name, t, previous or SHIP)


def default_placement(game: GameState, name: str, t: int, *, previous: str | None) -> M.PlaceTimer | None:
    legal = legal_placements(running(game), name, t)
    if not legal:
        return None
    if previous is not None:
        again = M.PlaceTimer(name, t, previous)
        if again in legal:
            return again
    player = game.player(name)
    assert player is not None
    for option in legal:
        if (
            option.symbol is not None
            and option.symbol not in (SHIP, RESEARCH)
            and useful(game, player, option.symbol)
        ):
            return option
    if M.PlaceTimer(name, t, RESEARCH) in legal:
        return M.PlaceTimer(name, t, RESEARCH)
    return legal[0]


def running(game: GameState) -> GameState:
    """The state as if the clock ran (to preview placements before the start)."""
    return replace(game, phase=PHASE_RUNNING) if game.phase == PHASE_SETUP else game


# --- defaults --------------------------------------------------------------------------------------


def trade_selection(
    player: PlayerState, center: Building, intent: Intent
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(counters, spaces) a trading center lift places: chosen ones first, then defaults."""
    free = order_spaces(player)
    if intent.trade is not None:
        counters = list(intent.trade)
    else:
        counters = default_counters(player, min(center.spec.capacity, len(free)))
    chosen = [s for s in intent.spaces if s in free]
    spaces = chosen + [s for s in free if s not in chosen]
    return counters, spaces[: len(counters)]


def order_spaces(player: PlayerState) -> list[tuple[str, int]]:
    """Free order spaces (production and beam spots), least valuable first: stage I plants, then up."""
    spaces = [
        (b.stage, 0 if b.type == "production" else 1, k, b.id, i)
        for k, b in enumerate(player.buildings)
        if b.type != "trading"
        for i in b.free_spots()
    ]
    return [(bid, i) for *_, bid, i in sorted(spaces)]


def useful(game: GameState, me: PlayerState, symbol: str) -> bool:
    """Whether lifting from this building would do something now."""
    b = me.building(symbol)
    if b is None:
        return False
    if b.type == "production":
        return any((c := b.spec.spots[i]) and game.supply_of(c) > 0 for i in b.free_spots())
    if b.type == "beam":
        return bool(b.free_spots()) and any(
            isinstance(c, Cube) for s in me.buildings if s.type == "production" for c in s.contents
        )
    return bool(me.above) and bool(order_spaces(me))


def default_beam(game: GameState, me: PlayerState, station: Building) -> list[tuple[str, int]]:
    """Cubes to beam: the colours other players order most first, up to the station's free spots."""
    demand = Counter(o.color for p in game.players if p.name != me.name for *_, o in p.placed_orders())
    cubes = [
        (b.id, i, c.color)
        for b in me.buildings
        if b.type == "production"
        for i, c in enumerate(b.contents)
        if isinstance(c, Cube)
    ]
    cubes.sort(key=lambda x: -demand[x[2]])
    return [(bid, i) for bid, i, _ in cubes[: len(station.free_spots())]]


def default_deliver(
    game: GameState, me: PlayerState, owner: PlayerState, taken: Counter[tuple[str, int]] | None = None
) -> list[tuple[str, int]]:
    """Every order at the planet the beam stations can pay for, the most valuable first.

    ``taken``: orders that lifters before this one fulfil (ships lifted together).
    """
    cubes = Counter(
        c.color for b in me.buildings if b.type == "beam" for c in b.contents if isinstance(c, Cube)
    )
    shown = Counter((o.color, o.value) for *_, o in owner.placed_orders()) - (taken or Counter())
    orders = sorted(shown.elements(), key=lambda k: (-k[1], COLORS.index(k[0])))
    wanted = []
    for color, value in orders:
        if cubes[color] >= value:
            cubes[color] -= value
            wanted.append((color, value))
    return wanted


def default_counters(me: PlayerState, n: int) -> list[tuple[str, int]]:
    """Counters to place: one at a time from the colour with the most counters left above, lowest value first."""
    left = Counter((o.color, o.value) for o in me.above)
    chosen: list[tuple[str, int]] = []
    for _ in range(n):
        by_color: Counter[str] = Counter()
        for (color, _value), k in left.items():
            if k > 0:
                by_color[color] += k
        if not by_color:
            break
        color = max(by_color, key=lambda c: (by_color[c], -COLORS.index(c)))
        value = min(v for (c, v), k in left.items() if c == color and k > 0)
        left[(color, value)] -= 1
        chosen.append((color, value))
    return chosen


def default_moon(game: GameState, me: PlayerState, moon: str) -> M.MoonChoice:
    height = game.height(moon)
    if not height:
        return "skip"
    if me.research is None:
        return "research"
    return "bottom" if height > 1 else "skip"


def moon_tile(game: GameState, moon: str, intent: Intent) -> str | None:
    """The tile a lift takes at ``moon``: the one the player read off the table, else the top tile the hub
    knows (the hub deck supplies it, so the action is the one a player would have entered), else the only
    kind of tile the pile can still hold; ``None`` when the player has to say."""
    if intent.tile is not None:
        return intent.tile
    top = game.top(moon)
    if top is not None:
        return top.id
    kinds = tile_kinds(game, game.possible_tops(moon))
    return kinds[0][1][0] if len(kinds) == 1 else None


def tile_kinds(game: GameState, pile: Pile) -> list[tuple[Tile, list[str]]]:
    """The different tiles ``pile`` can hold (identical tiles are one kind), the likeliest first: (a tile
    of the kind, the ids of its copies in the pile)."""
    kinds: list[tuple[Tile, list[str]]] = []
    for tile_id in pile.items():
        tile = game.tile(tile_id)
        if tile is None:
            continue
        for known, ids in kinds:
            if (known.stage2, known.stage3) == (tile.stage2, tile.stage3):
                ids.append(tile_id)
                break
        else:
            kinds.append((tile, [tile_id]))
    return sorted(kinds, key=lambda kind: -len(kind[1]))


def default_build(me: PlayerState) -> str | None:
    """A free stage I building for the waiting tile: one of the tile's own type first."""
    if me.research is None:
        return None
    free = [
        b
        for b in me.buildings
        if b.stage == 1 and b.is_unoccupied() and all(tm.symbol != b.id for tm in me.timers)
    ]
    same = [b for b in free if b.type == me.research.stage2.type]
    pick = same or free
    return pick[0].id if pick else None


# --- before the clock (full game) -------------------------------------------------------------------


def starting_selection(
    me: PlayerState, intent: Intent
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(counters, spaces) of the 2 starting orders: chosen ones, else two colours at their lowest values."""
    if intent.start_orders is not None:
        counters = list(intent.start_orders)
    else:  # two different colours, the lowest values: easy for the others to fulfil
        counters = []
        for color in COLORS:
            values = sorted(o.value for o in me.above if o.color == color)
            if values and len(counters) < 2:
                counters.append((color, values[0]))
    free = order_spaces(me)
    chosen = [s for s in intent.start_spaces if s in free]
    spaces = (chosen + [s for s in free if s not in chosen])[: len(counters)]
    return counters, spaces


# --- checking a phone's intent --------------------------------------------------------------------


def check_intent(game: GameState, name: str, t: int, intent: Intent) -> None:
    """Refuse an intent naming something that does not exist for this sandtimer.

    Only what can never become right is refused: an unknown time symbol, place, building,
    spot, colour or value, another player's symbol, or a place no wormhole from the
    spaceship's possible positions reaches. Whether the choice can be carried out (a cube is
    there, a spot is free) is the engine's to say when the sandtimer is flipped. (The codec
    has already checked every field's type.)
    """
    player = game.player(name)
    assert player is not None
    _check_symbol(game, player, intent)
    for refs in intent.beam or ():
        _check_spot(player, refs, production_only=True)
    for refs in (*intent.spaces, *intent.start_spaces):
        _check_spot(player, refs, production_only=False)
    _check_counters(intent.deliver or (), SPACESHIP)
    _check_counters((*(intent.trade or ()), *(intent.start_orders or ())), TRADING)
    if intent.tile is not None:
        _check_tile(game, player, t, intent.tile)
    if intent.build is not None and player.building(intent.build) is None:
        refuse(
            text("There is no building {building} on your control center", building=repr(intent.build)),
            RESEARCH_RULE,
        )


def _check_tile(game: GameState, player: PlayerState, t: int, tile_id: str) -> None:
    """A tile named for a moon must be one the pile there can still hold (when the ship is headed there)."""
    tile = game.tile(tile_id)
    if tile is None:
        refuse(text("There is no tile {tile} in the box", tile=repr(tile_id)), text("What the table drew"))
    timer = player.timers[t]
    moon = timer.destination or player.ship
    if timer.symbol != SHIP or moon not in game.moons or not game.height(moon):
        return  # where the ship will be when this sandtimer is lifted is not known yet
    top = game.top(moon)
    possible = [top] if top is not None else [kind for kind, _ in tile_kinds(game, game.possible_tops(moon))]
    if not any((k.stage2, k.stage3) == (tile.stage2, tile.stage3) for k in possible):
        refuse(
            text(
                "There is no {item} left in {pile}",
                item=tile_words(tile),
                pile=text("the pile at {moon}", moon=place_word(game, moon)),
            ),
            text("What the table drew"),
        )


def _check_symbol(game: GameState, player: PlayerState, intent: Intent) -> None:
    symbol = intent.symbol
    if symbol is not None:
        owner, _, own = symbol.rpartition(":")
        if owner and owner != player.name:
            refuse(
                text(
                    "You may only place a sandtimer on your own control center or spaceship, "
                    "never on another player's"
                ),
                GENERAL,
            )
        if own not in (SHIP, RESEARCH) and player.building(own) is None:
            refuse(
                text(
                    "There is no time symbol {symbol} on your control center or spaceship",
                    symbol=repr(symbol),
                ),
                GENERAL,
            )
        symbol = own
    destination = intent.destination
    if destination is None:
        return
    if symbol != SHIP:
        refuse(text("Only a sandtimer on your spaceship takes a destination"), SPACESHIP)
    # the ship is where it stands, or where a sandtimer on it takes it when that one is lifted first
    positions = {player.ship} | {
        tm.destination for tm in player.timers if tm.symbol == SHIP and tm.destination
    }
    reachable = set(positions).union(*(game.neighbours(p) for p in positions))
    if destination not in reachable:
        refuse(unreachable(game, player.ship, destination), SPACESHIP)


def _check_spot(player: PlayerState, ref: tuple[str, int], *, production_only: bool) -> None:
    bid, spot = ref
    b = player.building(bid)
    rule = BEAM if production_only else TRADING
    if b is None:
        refuse(text("There is no building {building} on your control center", building=repr(bid)), rule)
    if production_only and b.type != "production":
        refuse(
            text(
                "You can only beam goods from your production plants; {building} is not one",
                building=repr(bid),
            ),
            BEAM,
        )
    if not production_only and b.type == "trading":
        refuse(
            text("You may never place order counters on trading centers; use a free production or beam spot"),
            TRADING,
        )
    if not 0 <= spot < len(b.contents):
        refuse(text("Building {building} has no spot {spot}", building=b.id, spot=repr(spot)), rule)


def _check_counters(counters: Sequence[tuple[str, int]], rule: Text) -> None:
    for color, value in counters:
        if color not in COLORS:
            colors = tuple(color_word(c) for c in COLORS)
            refuse(
                text("{color} is not an order colour; use {colors}", color=repr(color), colors=colors), rule
            )
        if value not in ORDER_VALUES:
            refuse(text("Order counters show 1, 2 or 3, not {value}", value=repr(value)), rule)
