"""What a flip or a tap does in Time 'n' Space: the player's choices from the phone, else the defaults.

Pure functions of an engine state, an *intent* (the choices a player stored for one
sandtimer, see :mod:`.table`) and the planet owners' standing hand-over picks. They
build engine actions and never apply one: the referee applies each action once, and
the menus preview with them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeAlias

from companion.games.time_n_space import actions as A
from companion.games.time_n_space.engine import legal_placements, unreachable
from companion.games.time_n_space.scoring import COLORS, ORDER_VALUES
from companion.games.time_n_space.state import (
    PHASE_RUNNING,
    PHASE_SETUP,
    RESEARCH,
    SHIP,
    Building,
    Cube,
    GameState,
    Order,
    PlayerState,
)
from companion.games.time_n_space.words import (
    BEAM,
    GENERAL,
    RESEARCH_RULE,
    SPACESHIP,
    TABLE_RULE,
    TRADING,
    color_word,
)
from companion.rules.text import Text, TextError, text

Handover: TypeAlias = tuple[tuple[str, str, int, str, int], ...]
"""(owner, colour, value, building, spot): which of several identical order counters each planet
owner hands over first ("1. Your spaceship")."""


def handover_pick(handover: Handover, owner: PlayerState, color: str, value: int) -> tuple[str, int] | None:
    """The owner's standing pick for (colour, value), if that spot still holds such a counter."""
    for name, c, v, bid, i in handover:
        if (name, c, v) == (owner.name, color, value):
            b = owner.building(bid)
            if b is not None and 0 <= i < len(b.contents) and b.contents[i] == Order(owner.name, c, v):
                return bid, i
    return None


# --- lifting ---------------------------------------------------------------------------------------


def lift_choice(
    game: GameState, name: str, t: int, intent: dict[str, Any], handover: Handover = ()
) -> A.Choice | None:
    """The choice a lift of this sandtimer carries now: the intent's, else the default; None forfeits.

    Deliveries hand over the counters the planet's owner picked (``handover``), else the first.
    """
    player = game.player(name)
    assert player is not None
    timer = player.timers[t]
    if intent.get("forfeit") or timer.symbol is None:
        return None
    symbol = timer.symbol
    if symbol == SHIP:
        here = timer.destination or player.ship
        owner = game.owner_of(here)
        if owner is not None:
            if owner.name == name:
                return None
            wanted = pairs(intent["deliver"]) if "deliver" in intent else default_deliver(game, player, owner)
            return A.Deliver(_deliveries(owner, wanted, handover, set())) if wanted else None
        if game.variant == "intro":
            return None
        mode = intent.get("moon")
        if mode not in ("research", "bottom", "skip"):
            mode = default_moon(game, player, here)
        if mode == "skip":
            return None
        return A.MoonTile(mode == "research")
    if symbol == RESEARCH:
        target = intent.get("build") or default_build(player)
        return A.Build(target) if target is not None else None
    b = player.building(symbol)
    if b is None:
        return None
    if intent.get("upgrade"):
        return A.Upgrade()
    if b.type == "production":
        if not any(game.supply_of(c) > 0 for i in b.free_spots() if (c := b.spec.spots[i])):
            return None
        return A.Produce()
    if b.type == "beam":
        cubes = pairs(intent["beam"]) if "beam" in intent else default_beam(game, player, b)
        return A.Beam(tuple(cubes)) if cubes else None
    counters, spaces = trade_selection(player, b, intent)
    if not counters:
        return None
    return A.Trade(
        tuple(A.OrderPlacement(c, v, s[0], s[1]) for (c, v), s in zip(counters, spaces, strict=False))
    )


def _deliveries(
    owner: PlayerState, wanted: list[tuple[Any, Any]], handover: Handover, picked: set[tuple[str, int]]
) -> tuple[A.Delivery, ...]:
    """Deliveries of ``wanted``; the owner's pick goes to the first delivery of its kind (``picked``)."""
    orders = []
    for c, v in wanted:
        space = handover_pick(handover, owner, c, v)
        if space in picked:
            space = None
        if space is not None:
            picked.add(space)
        orders.append(A.Delivery(c, v, space))
    return tuple(orders)


def waiting_ships(game: GameState, owner: PlayerState) -> list[tuple[str, int]]:
    """(player, timer) of every other player's finished sandtimer on a ship arriving at ``owner``'s planet."""
    return [
        (p.name, t)
        for p in game.players
        if p.name != owner.name
        for t, tm in enumerate(p.timers)
        if tm.symbol == SHIP and not tm.running and (tm.destination or p.ship) == owner.planet
    ]


def together(
    game: GameState, owner: str, ships: Sequence[tuple[str, int]], handover: Handover = ()
) -> A.LiftTogether:
    """Ships lifted at the same moment at ``owner``'s planet, in the order the owner decided.

    Each lifter fulfils by default (what their beam stations pay, the most valuable first)
    among the orders the lifters before them left; the owner's hand-over picks go to the
    first taker of each kind. The lifters' own phone choices are not known to the owner's tap.
    """
    planet = game.player(owner)
    taken: Counter[tuple[str, int]] = Counter()
    picked: set[tuple[str, int]] = set()
    lifts = []
    for name, t in ships:
        me = game.player(name)
        choice = None
        if me is not None and planet is not None:  # else the engine names who is missing
            wanted = default_deliver(game, me, planet, taken)
            taken.update(wanted)
            if wanted:
                choice = A.Deliver(_deliveries(planet, wanted, handover, picked))
        lifts.append(A.LiftTimer(name, t, choice))
    return A.LiftTogether(owner, tuple(lifts))


# --- placing ---------------------------------------------------------------------------------------


def placement(
    game: GameState, name: str, t: int, intent: dict[str, Any], *, previous: str | None
) -> A.PlaceTimer:
    """The next placement: the intent's symbol, else the default (same symbol, else a useful one)."""
    symbol = intent.get("symbol")
    if symbol is not None:
        return A.PlaceTimer(name, t, symbol, intent.get("destination"))
    default = default_placement(game, name, t, previous=previous)
    # nothing is legal: try the obvious one anyway so the engine names the reason
    return default if default is not None else A.PlaceTimer(name, t, previous or SHIP)


def default_placement(game: GameState, name: str, t: int, *, previous: str | None) -> A.PlaceTimer | None:
    legal = legal_placements(running(game), name, t)
    if not legal:
        return None
    if previous is not None:
        again = A.PlaceTimer(name, t, previous)
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
    if A.PlaceTimer(name, t, RESEARCH) in legal:
        return A.PlaceTimer(name, t, RESEARCH)
    return legal[0]


def running(game: GameState) -> GameState:
    """The state as if the clock ran (to preview placements before the start)."""
    return replace(game, phase=PHASE_RUNNING) if game.phase == PHASE_SETUP else game


# --- defaults --------------------------------------------------------------------------------------


def trade_selection(
    player: PlayerState, center: Building, intent: dict[str, Any]
) -> tuple[list[tuple[Any, Any]], list[tuple[Any, Any]]]:
    """(counters, spaces) a trading center lift places: chosen ones first, then defaults."""
    free = order_spaces(player)
    if "trade" in intent:
        counters = pairs(intent["trade"])
    else:
        counters = default_counters(player, min(center.spec.capacity, len(free)))
    chosen = [s for s in pairs(intent.get("spaces")) if s in free]
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


def pairs(value: Any) -> list[tuple[Any, Any]]:
    """A list of 2-item lists from an intent, as tuples (bad items are kept so the engine names them)."""
    if not isinstance(value, list):
        return []
    return [tuple(x) if isinstance(x, list) and len(x) == 2 else (x, None) for x in value]


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


def default_moon(game: GameState, me: PlayerState, moon: str) -> str:
    pile = game.pile(moon)
    if not pile:
        return "skip"
    if me.research is None:
        return "research"
    return "bottom" if len(pile) > 1 else "skip"


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


def starting_selection(me: PlayerState, intent: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """(counters, spaces) of the 2 starting orders: chosen ones, else two colours at their lowest values."""
    if "start_orders" in intent:
        counters = pairs(intent["start_orders"])
    else:  # two different colours, the lowest values: easy for the others to fulfil
        counters = []
        for color in COLORS:
            values = sorted(o.value for o in me.above if o.color == color)
            if values and len(counters) < 2:
                counters.append((color, values[0]))
    free = order_spaces(me)
    chosen = [s for s in pairs(intent.get("start_spaces")) if s in free]
    spaces = (chosen + [s for s in free if s not in chosen])[: len(counters)]
    return counters, spaces


def starting_placements(orders: Any) -> tuple[A.OrderPlacement, ...]:
    """The starting orders of a phone action; :class:`TextError` (a ValueError) with a sentence if malformed."""
    if not isinstance(orders, list):
        raise TextError(text("List the 2 starting orders as colour, value, building and spot"))
    out = []
    for o in orders:
        if not isinstance(o, dict) or not {"color", "value", "building", "spot"} <= set(o):
            raise TextError(text("Each starting order needs a colour, a value, a building and a spot"))
        out.append(A.OrderPlacement(o["color"], o["value"], o["building"], o["spot"]))
    return tuple(out)


# --- checking a phone's intent --------------------------------------------------------------------

INTENT_KEYS = (
    "symbol",
    "destination",
    "forfeit",
    "upgrade",
    "beam",
    "deliver",
    "trade",
    "spaces",
    "build",
    "moon",
    "start_orders",
    "start_spaces",
)
"""What an intent may hold (see :mod:`.table`); the table adds ``node``."""

MOON_CHOICES = ("research", "bottom", "skip")


def intent_refusal(game: GameState, name: str, t: int, intent: Any) -> tuple[Text, Text] | None:
    """(reason, rule) when ``intent`` names something that does not exist for this sandtimer, else None.

    Only what can never become right is refused: an unknown key, time symbol, place, building,
    spot, colour, value or moon choice, or a place no wormhole from the spaceship's possible
    positions reaches. Whether the choice can be carried out (a cube is there, a spot is free)
    is the engine's to say when the sandtimer is flipped.
    """
    if not isinstance(intent, dict):
        return text("A choice for a sandtimer is a set of named choices"), TABLE_RULE
    player = game.player(name)
    if player is None:
        return text("{player} does not play in this game", player=name), TABLE_RULE
    for key in intent:
        if key != "node" and key not in INTENT_KEYS:
            return text("A sandtimer has no choice {choice} in Time 'n' Space", choice=repr(key)), TABLE_RULE
    checks = (
        _symbol_refusal(game, player, intent),
        _flags_refusal(intent),
        _spots_refusal(player, intent.get("beam"), "beam", production_only=True),
        _spots_refusal(player, intent.get("spaces"), "spaces", production_only=False),
        _spots_refusal(player, intent.get("start_spaces"), "start_spaces", production_only=False),
        _counters_refusal(intent, "deliver"),
        _counters_refusal(intent, "trade"),
        _counters_refusal(intent, "start_orders"),
        _build_refusal(player, intent.get("build")),
        _moon_refusal(intent.get("moon")),
    )
    return next((c for c in checks if c is not None), None)


def _symbol_refusal(game: GameState, player: PlayerState, intent: dict[str, Any]) -> tuple[Text, Text] | None:
    symbol = intent.get("symbol")
    destination = intent.get("destination")
    if symbol is not None:
        if not isinstance(symbol, str):
            return text("{symbol} is not a time symbol", symbol=repr(symbol)), GENERAL
        owner, _, own = symbol.rpartition(":")
        if owner and owner != player.name:
            return (
                text(
                    "You may only place a sandtimer on your own control center or spaceship, "
                    "never on another player's"
                ),
                GENERAL,
            )
        if own not in (SHIP, RESEARCH) and player.building(own) is None:
            return (
                text(
                    "There is no time symbol {symbol} on your control center or spaceship",
                    symbol=repr(symbol),
                ),
                GENERAL,
            )
        symbol = own
    if destination is None:
        return None
    if symbol != SHIP:
        return text("Only a sandtimer on your spaceship takes a destination"), SPACESHIP
    # the ship is where it stands, or where a sandtimer on it takes it when that one is lifted first
    positions = {player.ship} | {
        tm.destination for tm in player.timers if tm.symbol == SHIP and tm.destination
    }
    reachable = set(positions).union(*(game.neighbours(p) for p in positions))
    if destination not in reachable:
        return unreachable(game, player.ship, destination), SPACESHIP
    return None


def _flags_refusal(intent: dict[str, Any]) -> tuple[Text, Text] | None:
    for key in ("forfeit", "upgrade"):
        if key in intent and not isinstance(intent[key], bool):
            return text("The choice {choice} is yes or no", choice=repr(key)), TABLE_RULE
    return None


def _pair_list(value: Any) -> list[tuple[Any, Any]] | None:
    if not isinstance(value, list) or not all(isinstance(x, list) and len(x) == 2 for x in value):
        return None
    return [(x[0], x[1]) for x in value]


def _spots_refusal(
    player: PlayerState, value: Any, key: str, *, production_only: bool
) -> tuple[Text, Text] | None:
    if value is None:
        return None
    refs = _pair_list(value)
    if refs is None:
        return text("The choice {choice} lists pairs of building and spot", choice=repr(key)), TABLE_RULE
    for bid, spot in refs:
        b = player.building(bid) if isinstance(bid, str) else None
        if b is None:
            return (
                text("There is no building {building} on your control center", building=repr(bid)),
                BEAM if production_only else TRADING,
            )
        if production_only and b.type != "production":
            return (
                text(
                    "You can only beam goods from your production plants; {building} is not one",
                    building=repr(bid),
                ),
                BEAM,
            )
        if not production_only and b.type == "trading":
            return (
                text(
                    "You may never place order counters on trading centers; use a free production or beam spot"
                ),
                TRADING,
            )
        if not isinstance(spot, int) or isinstance(spot, bool) or not 0 <= spot < len(b.contents):
            return (
                text("Building {building} has no spot {spot}", building=b.id, spot=repr(spot)),
                BEAM if production_only else TRADING,
            )
    return None


def _counters_refusal(intent: dict[str, Any], key: str) -> tuple[Text, Text] | None:
    if key not in intent:
        return None
    refs = _pair_list(intent[key])
    if refs is None:
        return text("The choice {choice} lists pairs of colour and value", choice=repr(key)), TABLE_RULE
    rule = SPACESHIP if key == "deliver" else TRADING
    for color, value in refs:
        if color not in COLORS:
            colors = tuple(color_word(c) for c in COLORS)
            return text(
                "{color} is not an order colour; use {colors}", color=repr(color), colors=colors
            ), rule
        if value not in ORDER_VALUES or isinstance(value, bool):
            return text("Order counters show 1, 2 or 3, not {value}", value=repr(value)), rule
    return None


def _build_refusal(player: PlayerState, building: Any) -> tuple[Text, Text] | None:
    if building is None or (isinstance(building, str) and player.building(building) is not None):
        return None
    return text(
        "There is no building {building} on your control center", building=repr(building)
    ), RESEARCH_RULE


def _moon_refusal(choice: Any) -> tuple[Text, Text] | None:
    if choice is None or choice in MOON_CHOICES:
        return None
    return (
        text(
            "At a moon you take the top tile (research), put it under the pile (bottom) or skip; not {choice}",
            choice=repr(choice),
        ),
        SPACESHIP,
    )
