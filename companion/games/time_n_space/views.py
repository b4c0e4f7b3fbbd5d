"""Time 'n' Space in words: the dashboard, the phone pages and what each step did.

Pure functions of the engine state; the referee of :mod:`.table` answers ``view``,
``player_view`` and the notes of its decisions with them, and the menus of
:mod:`.menus` label their buttons with them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.games.time_n_space import actions as A
from companion.games.time_n_space.engine import BUILDING_NAMES
from companion.games.time_n_space.scoring import COLORS
from companion.games.time_n_space.shared import PHASE_WORDS, counts_text
from companion.games.time_n_space.state import RESEARCH, SHIP, Building, Cube, GameState, Order, PlayerState
from companion.rules.pages import View

ROMAN = {1: "I", 2: "II", 3: "III"}


def building_label(b: Building) -> str:
    """A building in words: "b1 production plant I (gray)"."""
    label = f"{b.id} {BUILDING_NAMES[b.type]} {ROMAN[b.stage]}"
    if b.type == "production":
        colors = sorted(set(c for c in b.spec.spots if c), key=COLORS.index)
        label += f" ({'/'.join(colors)})"
    return label


def symbol_label(player: PlayerState, symbol: str | None, destination: str | None = None) -> str:
    """Where a sandtimer stands, in words (e.g. "spaceship: planet-1 \u2192 moon-1")."""
    if symbol is None:
        return "in front of you"
    if symbol == SHIP:
        if destination is not None:
            return f"spaceship: {player.ship} \u2192 {destination}"
        return f"spaceship: stay at {player.ship}"
    if symbol == RESEARCH:
        return "research plant"
    b = player.building(symbol)
    return building_label(b) if b is not None else symbol


def upper_first(text: str) -> str:
    """``text`` with its first letter upper case."""
    return text[:1].upper() + text[1:]


def _contents(b: Building) -> str:
    if b.type == "trading":
        return f"places {b.spec.capacity} order{'s' if b.spec.capacity != 1 else ''}"
    parts = []
    for i, c in enumerate(b.contents):
        if isinstance(c, Cube):
            parts.append(f"{c.color} cube")
        elif isinstance(c, Order):
            parts.append(f"order {c.color} {c.value}")
        else:
            want = b.spec.spots[i] if i < len(b.spec.spots) else None
            parts.append(f"free ({want})" if want else "free")
    return ", ".join(parts) or "-"


def choice_text(choice: A.Choice | None) -> str:
    """What a lift with this choice does, in a few words."""
    match choice:
        case None:
            return "forfeit the action"
        case A.Produce():
            return "produce"
        case A.Beam(cubes=cubes):
            return f"beam {len(cubes)} cube{'s' if len(cubes) != 1 else ''}"
        case A.Trade(orders=orders):
            return f"place {len(orders)} order{'s' if len(orders) != 1 else ''}"
        case A.Deliver(orders=orders):
            return "fulfil " + ", ".join(f"{d.color} {d.value}" for d in orders)
        case A.MoonTile(research=True):
            return "take the top tile"
        case A.MoonTile():
            return "put the top tile under the pile"
        case A.Build(building=b):
            return f"build onto {b}"
        case A.Upgrade():
            return "upgrade to stage III"
    return "act"


def _collected(p: PlayerState) -> str:
    """Collected counters with where they came from, e.g. "gray 1 (green), yellow 2 (red); bonus 2"."""
    text = ", ".join(f"{c.color} {c.value} ({c.source})" for c in p.collected) or "none"
    return text + (f"; bonus {', '.join(str(b) for b in p.bonus)}" if p.bonus else "")


def _timer_text(p: PlayerState, tm: Any) -> str:
    if tm.symbol is None:
        return "in front of the player"
    state = "sand running" if tm.running else "finished, waits to be lifted"
    return f"on {symbol_label(p, tm.symbol, tm.destination)} ({state})"


def _control_center_panel(p: PlayerState, title: str) -> dict[str, Any]:
    rows = []
    for b in p.buildings:
        on = ", ".join(f"timer {t + 1}" for t, tm in enumerate(p.timers) if tm.symbol == b.id)
        rows.append([b.id, BUILDING_NAMES[b.type], ROMAN[b.stage], _contents(b), on])
    research = (
        "empty" if p.research is None else f"{BUILDING_NAMES[p.research.stage2.type]} II tile {p.research.id}"
    )
    on = ", ".join(f"timer {t + 1}" for t, tm in enumerate(p.timers) if tm.symbol == RESEARCH)
    rows.append(["research", "research plant", "", research, on])
    return {
        "kind": "table",
        "title": title,
        "columns": ["Building", "Type", "Stage", "Spots", "Sandtimer"],
        "rows": rows,
    }


def _board_lines(game: GameState) -> list[str]:
    lines = []
    ships: dict[str, list[str]] = {}
    travelling = []
    for p in game.players:
        ships.setdefault(p.ship, []).append(p.name)
        for t, tm in enumerate(p.timers):
            if tm.symbol == SHIP and tm.destination:
                travelling.append(f"{p.name}'s ship flies {p.ship} \u2192 {tm.destination} (timer {t + 1})")
    for p, bonus in zip(game.players, game.planet_bonus, strict=True):
        here = f" \u00b7 ships: {', '.join(ships[p.planet])}" if p.planet in ships else ""
        extra = f" \u00b7 bonus counter {bonus}" if bonus is not None else ""
        lines.append(f"{p.planet} ({p.name}'s planet){extra}{here}")
    for moon, pile in zip(game.moons, game.piles, strict=True):
        here = f" \u00b7 ships: {', '.join(ships[moon])}" if moon in ships else ""
        tiles = f"{len(pile)} tiles" + (f", top: {BUILDING_NAMES[pile[0].stage2.type]} II" if pile else "")
        lines.append(f"{moon}: {tiles}{here}")
    return lines + travelling


def describe(events: Iterable[Any], game: GameState) -> str:
    """The engine's events of one action, in words for the dashboard."""
    parts = []
    for e in events:
        match e:
            case A.StartingOrdersPlaced(player=p, orders=orders):
                parts.append(
                    f"{p} placed starting orders " + ", ".join(f"{o.color} {o.value}" for o in orders)
                )
            case A.GameStarted():
                parts.append("the game started")
            case A.TimerPlaced(player=p, timer=t, symbol=s, destination=d):
                who = game.player(p)
                label = symbol_label(who, s, d) if who is not None else s
                parts.append(f"{p} timer {t + 1} \u2192 {label}")
            case A.SandRanThrough(player=p, timer=t):
                parts.append(f"{p} timer {t + 1}: sand ran through")
            case A.TimerLifted(player=p, timer=t, symbol=s):
                parts.append(f"{p} lifted timer {t + 1} from {s}")
            case A.ActionForfeited(player=p, symbol=s):
                parts.append(f"{p} forfeited the action of {s}")
            case A.TimerParked(player=p, timer=t):
                parts.append(f"{p} set timer {t + 1} aside")
            case A.ShipArrived(player=p, location=loc):
                owner = game.owner_of(loc)
                parts.append(f"{p}'s ship arrived at {loc}" + (f" ({owner.name}'s planet)" if owner else ""))
            case A.TileTaken(player=p, moon=m, tile=tile):
                parts.append(f"{p} took tile {tile} at {m} into the research plant")
            case A.TilePutUnder(player=p, moon=m, tile=tile):
                parts.append(f"{p} put tile {tile} under the pile at {m}")
            case A.OrderFulfilled(player=p, owner=o, color=c, value=v):
                parts.append(f"{p} fulfilled {o}'s {c} {v}")
            case A.BonusTaken(player=p, planet_owner=o, value=v):
                parts.append(f"{p} took the bonus counter ({v}) of {o}'s planet")
            case A.GoodsProduced(player=p, building=b, colors=cs):
                parts.append(f"{p} produced {', '.join(cs) or 'nothing'} on {b}")
            case A.GoodsBeamed(player=p, building=b, colors=cs):
                parts.append(f"{p} beamed {', '.join(cs) or 'nothing'} into {b}")
            case A.OrdersPlaced(player=p, orders=orders):
                parts.append(
                    f"{p} placed orders "
                    + (", ".join(f"{o.color} {o.value} on {o.building}" for o in orders) or "none")
                )
            case A.BuildingBuilt(player=p, building=b, tile=tile):
                parts.append(f"{p} built tile {tile} onto {b}")
            case A.BuildingUpgraded(player=p, building=b):
                parts.append(f"{p} upgraded {b} to stage III")
            case A.ClockRanOut():
                parts.append("the master clock ran out: running sandtimers may finish")
            case A.GameEnded():
                parts.append("every sandtimer is lifted: game over, final scoring")
    return "; ".join(parts)


# --- pages ---------------------------------------------------------------------------------------


def table_view(game: GameState) -> View:
    """The dashboard: players, supply, board, orders and every control center."""
    supply = ", ".join(f"{c} {n}" for c, n in zip(COLORS, game.supply, strict=True))
    summary = (
        f"Time 'n' Space, {'full' if game.variant == 'full' else 'introductory'} game: "
        f"{PHASE_WORDS[game.phase]} \u00b7 supply {supply}"
    )
    players_rows = []
    for p in game.players:
        timers = "; ".join(_timer_text(p, tm) for tm in p.timers)
        players_rows.append([p.name, p.planet, p.ship, timers, len(p.above), len(p.collected), sum(p.bonus)])
    panels: list[dict[str, Any]] = [
        {
            "kind": "table",
            "title": "Players",
            "columns": ["Player", "Planet", "Ship", "Sandtimers", "Above", "Collected", "Bonus"],
            "rows": players_rows,
        },
        {"kind": "table", "title": "Goods supply", "columns": list(COLORS), "rows": [list(game.supply)]},
        {"kind": "lines", "title": "Board", "lines": _board_lines(game)},
        {
            "kind": "table",
            "title": "Orders on the control centers",
            "columns": ["Player", "Placed orders", "Still above", "Collected below"],
            "rows": [
                [
                    p.name,
                    counts_text((o.color, o.value) for *_, o in p.placed_orders()),
                    counts_text((o.color, o.value) for o in p.above),
                    _collected(p),
                ]
                for p in game.players
            ],
        },
    ]
    panels += [_control_center_panel(p, f"{p.name}'s control center") for p in game.players]
    return View(summary, tuple(panels), {"phase": game.phase, "variant": game.variant})


def player_view(game: GameState, player: str) -> View:
    """A phone page: the player's sandtimers, control center and counters."""
    me = game.player(player)
    if me is None:
        return View(f"{player} does not play in this game")
    where = game.owner_of(me.ship)
    at = f"{me.ship} ({where.name}'s planet)" if where is not None else me.ship
    summary = f"{me.name}: planet {me.planet}, spaceship at {at} \u00b7 {PHASE_WORDS[game.phase]}"
    timer_lines = [f"Timer {t + 1}: {_timer_text(me, tm)}" for t, tm in enumerate(me.timers)]
    if game.variant == "full" and not me.ready:
        timer_lines.append("Pick and place your 2 starting orders before the master clock starts")
    counters = [
        f"Above your control center: {counts_text((o.color, o.value) for o in me.above)}",
        f"Collected: {', '.join(f'{c.color} {c.value} ({c.source})' for c in me.collected) or 'none'}",
        f"Bonus counters: {', '.join(str(b) for b in me.bonus) or 'none'}",
    ]
    voids = [c for c in COLORS if any(o.color == c for o in me.above)]
    if voids:
        counters.append(f"Still void at the end if not placed: {', '.join(voids)}")
    panels = (
        {"kind": "lines", "title": "My sandtimers", "lines": timer_lines},
        _control_center_panel(me, "My control center"),
        {"kind": "lines", "title": "My counters", "lines": counters},
    )
    return View(summary, panels)
