"""Time 'n' Space in words: the dashboard, the phone pages and what each step did.

Pure functions of the engine state; the referee of :mod:`.table` answers ``view``,
``player_view`` and the notes of its decisions with them, and the menus of
:mod:`.menus` label their buttons with them. Every word is a
:class:`~companion.rules.text.Text` (see :mod:`.words`); the dashboard's picture of the
board is built by :mod:`.picture`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from companion.games.time_n_space import actions as A
from companion.games.time_n_space.picture import board_picture
from companion.games.time_n_space.scoring import COLORS
from companion.games.time_n_space.state import (
    RESEARCH,
    SHIP,
    Building,
    Cube,
    GameState,
    Order,
    PlayerState,
    Timer,
)
from companion.games.time_n_space.words import (
    BUILDING_WORDS,
    COLOR_WORDS,
    NONE,
    PHASE_WORDS,
    ROMAN,
    VARIANT_WORDS,
    building_label,
    color_word,
    counter_text,
    counters_text,
    place_word,
    symbol_label,
)
from companion.rules.pages import View
from companion.rules.setup import Seat
from companion.rules.text import Text, joined, text

__all__ = ["building_label", "choice_text", "describe", "player_view", "symbol_label", "table_view"]


def _contents(b: Building) -> Text:
    if b.type == "trading":
        return text("places {count} order", "places {count} orders", count=b.spec.capacity)
    parts = []
    for i, c in enumerate(b.contents):
        if isinstance(c, Cube):
            parts.append(text("{color} cube", color=color_word(c.color)))
        elif isinstance(c, Order):
            parts.append(text("order {counter}", counter=counter_text(c.color, c.value)))
        else:
            want = b.spec.spots[i] if i < len(b.spec.spots) else None
            parts.append(text("free ({color})", color=color_word(want)) if want else text("free"))
    return joined(parts, ", ") if parts else NONE


def _goods(colors: Iterable[str]) -> Text | tuple[Text | str, ...]:
    words = tuple(color_word(c) for c in colors)
    return words if words else text("nothing")


def choice_text(choice: A.Choice | None) -> Text:
    """What a lift with this choice does, in a few words."""
    match choice:
        case None:
            return text("forfeit the action")
        case A.Produce():
            return text("produce")
        case A.Beam(cubes=cubes):
            return text("beam {count} cube", "beam {count} cubes", count=len(cubes))
        case A.Trade(orders=orders):
            return text("place {count} order", "place {count} orders", count=len(orders))
        case A.Deliver(orders=orders):
            if not orders:
                return text("fulfil nothing")
            return text("fulfil {orders}", orders=tuple(counter_text(d.color, d.value) for d in orders))
        case A.MoonTile(research=True):
            return text("take the top tile")
        case A.MoonTile():
            return text("put the top tile under the pile")
        case A.Build(building=b):
            return text("build onto {building}", building=b)
        case A.Upgrade():
            return text("upgrade to stage III")
    return text("act")


def _collected(p: PlayerState) -> Text:
    """Collected counters with where they came from, e.g. "gray 1 (green), yellow 2 (red); bonus 2"."""
    got = [
        text("{counter} ({player})", counter=counter_text(c.color, c.value), player=c.source)
        for c in p.collected
    ]
    listed = joined(got, ", ") if got else NONE
    if not p.bonus:
        return listed
    return text("{collected}; bonus {values}", collected=listed, values=", ".join(str(b) for b in p.bonus))


def timer_text(game: GameState, p: PlayerState, tm: Timer) -> Text:
    """Where a sandtimer is and whether its sand runs."""
    if tm.symbol is None:
        return text("in front of the player")
    where = symbol_label(game, p, tm.symbol, tm.destination)
    if tm.running:
        return text("on {symbol} (sand running)", symbol=where)
    return text("on {symbol} (finished, waits to be lifted)", symbol=where)


def _timers_on(p: PlayerState, symbol: str) -> Text | str:
    on = [text("timer {index}", index=t + 1) for t, tm in enumerate(p.timers) if tm.symbol == symbol]
    return joined(on, ", ") if on else ""


def _control_center_panel(p: PlayerState, title: Text) -> dict[str, Any]:
    rows: list[list[Any]] = []
    for b in p.buildings:
        rows.append([b.id, BUILDING_WORDS[b.type], ROMAN[b.stage], _contents(b), _timers_on(p, b.id)])
    research = (
        text("empty")
        if p.research is None
        else text("{kind} II tile {tile}", kind=BUILDING_WORDS[p.research.stage2.type], tile=p.research.id)
    )
    rows.append([text("research"), text("research plant"), "", research, _timers_on(p, RESEARCH)])
    return {
        "kind": "table",
        "title": title,
        "columns": [text("Building"), text("Type"), text("Stage"), text("Spots"), text("Sandtimer")],
        "rows": rows,
    }


def _board_lines(game: GameState) -> list[Text]:
    lines: list[Text] = []
    ships: dict[str, list[str]] = {}
    travelling = []
    for p in game.players:
        ships.setdefault(p.ship, []).append(p.name)
        for t, tm in enumerate(p.timers):
            if tm.symbol == SHIP and tm.destination:
                travelling.append(
                    text(
                        "{player}'s ship flies {origin} → {destination} (timer {index})",
                        player=p.name,
                        origin=place_word(game, p.ship),
                        destination=place_word(game, tm.destination),
                        index=t + 1,
                    )
                )
    for p, bonus in zip(game.players, game.planet_bonus, strict=True):
        parts: list[Text] = [place_word(game, p.planet)]
        if bonus is not None:
            parts.append(text("bonus counter {value}", value=bonus))
        if p.planet in ships:
            parts.append(text("ships: {players}", players=tuple(ships[p.planet])))
        lines.append(joined(parts, " · "))
    for moon, pile in zip(game.moons, game.piles, strict=True):
        tiles = text("{count} tile", "{count} tiles", count=len(pile))
        if pile:
            tiles = text("{tiles}, top: {kind} II", tiles=tiles, kind=BUILDING_WORDS[pile[0].stage2.type])
        parts = [text("{place}: {tiles}", place=place_word(game, moon), tiles=tiles)]
        if moon in ships:
            parts.append(text("ships: {players}", players=tuple(ships[moon])))
        lines.append(joined(parts, " · "))
    return lines + travelling


def describe(events: Iterable[Any], game: GameState) -> Text:
    """The engine's events of one action, in words for the dashboard."""
    parts: list[Text] = []
    for e in events:
        match e:
            case A.StartingOrdersPlaced(player=p, orders=orders):
                parts.append(
                    text(
                        "{player} placed starting orders {counters}",
                        player=p,
                        counters=tuple(counter_text(o.color, o.value) for o in orders),
                    )
                )
            case A.GameStarted():
                parts.append(text("the game started"))
            case A.TimerPlaced(player=p, timer=t, symbol=s, destination=d):
                who = game.player(p)
                label: Text | str = symbol_label(game, who, s, d) if who is not None else s
                parts.append(text("{player} timer {index} → {symbol}", player=p, index=t + 1, symbol=label))
            case A.SandRanThrough(player=p, timer=t):
                parts.append(text("{player} timer {index}: sand ran through", player=p, index=t + 1))
            case A.TimerLifted(player=p, timer=t, symbol=s):
                parts.append(
                    text(
                        "{player} lifted timer {index} from {symbol}", player=p, index=t + 1, symbol=_short(s)
                    )
                )
            case A.ActionForfeited(player=p, symbol=s):
                parts.append(text("{player} forfeited the action of {symbol}", player=p, symbol=_short(s)))
            case A.TimerParked(player=p, timer=t):
                parts.append(text("{player} set timer {index} aside", player=p, index=t + 1))
            case A.ShipArrived(player=p, location=loc):
                parts.append(
                    text("{player}'s ship arrived at {place}", player=p, place=place_word(game, loc))
                )
            case A.TileTaken(player=p, moon=m, tile=tile):
                parts.append(
                    text(
                        "{player} took tile {tile} at {moon} into the research plant",
                        player=p,
                        tile=tile,
                        moon=place_word(game, m),
                    )
                )
            case A.TilePutUnder(player=p, moon=m, tile=tile):
                parts.append(
                    text(
                        "{player} put tile {tile} under the pile at {moon}",
                        player=p,
                        tile=tile,
                        moon=place_word(game, m),
                    )
                )
            case A.OrderFulfilled(player=p, owner=o, color=c, value=v):
                parts.append(
                    text(
                        "{player} fulfilled {owner}'s {counter}",
                        player=p,
                        owner=o,
                        counter=counter_text(c, v),
                    )
                )
            case A.BonusTaken(player=p, planet_owner=o, value=v):
                parts.append(
                    text(
                        "{player} took the bonus counter ({value}) of {owner}'s planet",
                        player=p,
                        value=v,
                        owner=o,
                    )
                )
            case A.GoodsProduced(player=p, building=b, colors=cs):
                parts.append(
                    text("{player} produced {goods} on {building}", player=p, goods=_goods(cs), building=b)
                )
            case A.GoodsBeamed(player=p, building=b, colors=cs):
                parts.append(
                    text("{player} beamed {goods} into {building}", player=p, goods=_goods(cs), building=b)
                )
            case A.OrdersPlaced(player=p, orders=orders):
                if orders:
                    placed = tuple(
                        text(
                            "{counter} on {building}",
                            counter=counter_text(o.color, o.value),
                            building=o.building,
                        )
                        for o in orders
                    )
                    parts.append(text("{player} placed orders {orders}", player=p, orders=placed))
                else:
                    parts.append(text("{player} placed no orders", player=p))
            case A.BuildingBuilt(player=p, building=b, tile=tile):
                parts.append(
                    text("{player} built tile {tile} onto {building}", player=p, tile=tile, building=b)
                )
            case A.BuildingUpgraded(player=p, building=b):
                parts.append(text("{player} upgraded {building} to stage III", player=p, building=b))
            case A.ClockRanOut():
                parts.append(text("the master clock ran out: running sandtimers may finish"))
            case A.GameEnded():
                parts.append(text("every sandtimer is lifted: game over, final scoring"))
    return joined(parts)


def _short(symbol: str) -> Text | str:
    """A time symbol in a sentence about a lift: "the spaceship", "the research plant" or the building's id."""
    if symbol == SHIP:
        return text("the spaceship")
    if symbol == RESEARCH:
        return text("the research plant")
    return symbol


# --- pages ---------------------------------------------------------------------------------------


def table_view(game: GameState, seats: Sequence[Seat] = (), colours: dict[str, str] | None = None) -> View:
    """The dashboard: the picture of the board, then players, supply, board, orders and every control center.

    ``seats`` name each sandtimer's node in the picture; ``colours`` are the players' colours.
    """
    supply = joined(
        [
            text("{color}: {cubes}", color=COLOR_WORDS[c], cubes=n)
            for c, n in zip(COLORS, game.supply, strict=True)
        ],
        ", ",
    )
    summary = text(
        "Time 'n' Space, {variant}: {phase} · supply {supply}",
        variant=VARIANT_WORDS[game.variant],
        phase=PHASE_WORDS[game.phase],
        supply=supply,
    )
    players_rows = []
    for p in game.players:
        timers = joined([timer_text(game, p, tm) for tm in p.timers])
        players_rows.append(
            [
                p.name,
                place_word(game, p.planet),
                place_word(game, p.ship),
                timers,
                len(p.above),
                len(p.collected),
                sum(p.bonus),
            ]
        )
    panels: list[dict[str, Any]] = [
        {
            "kind": "table",
            "title": text("Players"),
            "columns": [
                text("Player"),
                text("Planet"),
                text("Ship"),
                text("Sandtimers"),
                text("Above"),
                text("Collected"),
                text("Bonus"),
            ],
            "rows": players_rows,
        },
        {
            "kind": "table",
            "title": text("Goods supply"),
            "columns": [COLOR_WORDS[c] for c in COLORS],
            "rows": [list(game.supply)],
        },
        {"kind": "lines", "title": text("Board"), "lines": _board_lines(game)},
        {
            "kind": "table",
            "title": text("Orders on the control centers"),
            "columns": [text("Player"), text("Placed orders"), text("Still above"), text("Collected below")],
            "rows": [
                [
                    p.name,
                    counters_text((o.color, o.value) for *_, o in p.placed_orders()),
                    counters_text((o.color, o.value) for o in p.above),
                    _collected(p),
                ]
                for p in game.players
            ],
        },
    ]
    panels += [
        _control_center_panel(p, text("{player}'s control center", player=p.name)) for p in game.players
    ]
    extra = {
        "phase": game.phase,
        "variant": game.variant,
        "picture": board_picture(game, seats, colours or {}),
    }
    return View(summary, tuple(panels), extra)


def player_view(game: GameState, player: str) -> View:
    """A phone page: the player's sandtimers, control center and counters."""
    me = game.player(player)
    if me is None:
        return View(text("{player} does not play in this game", player=player))
    summary = text(
        "{player}: your spaceship is at {place} · {phase}",
        player=me.name,
        place=place_word(game, me.ship),
        phase=PHASE_WORDS[game.phase],
    )
    timer_lines = [
        text("Timer {index}: {where}", index=t + 1, where=timer_text(game, me, tm))
        for t, tm in enumerate(me.timers)
    ]
    if game.variant == "full" and not me.ready:
        timer_lines.append(text("Pick and place your 2 starting orders before the master clock starts"))
    collected = [
        text("{counter} ({player})", counter=counter_text(c.color, c.value), player=c.source)
        for c in me.collected
    ]
    counters = [
        text(
            "Above your control center: {counters}",
            counters=counters_text((o.color, o.value) for o in me.above),
        ),
        text("Collected: {counters}", counters=joined(collected, ", ") if collected else NONE),
        text("Bonus counters: {values}", values=", ".join(str(b) for b in me.bonus) if me.bonus else NONE),
    ]
    voids = tuple(COLOR_WORDS[c] for c in COLORS if any(o.color == c for o in me.above))
    if voids:
        counters.append(text("Still void at the end if not placed: {colors}", colors=voids))
    panels = (
        {"kind": "lines", "title": text("My sandtimers"), "lines": timer_lines},
        _control_center_panel(me, text("My control center")),
        {"kind": "lines", "title": text("My counters"), "lines": counters},
    )
    return View(summary, panels)
