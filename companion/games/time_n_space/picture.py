"""The dashboard's picture of Time 'n' Space: what ``static/pictures/time-n-space.js`` draws.

Structured data, not drawing: the main board (planets and moons around the ring of
wormholes, the tile piles at the moons, the bonus counters on the planets, every
spaceship where it is or on its way), the goods supply, and each player's control
center (buildings with their spots, the research plant, the spaceship's time symbol)
with the sandtimer that stands on each time symbol: which node, which of the player's
timers, and whether its sand runs or it waits to be lifted. Words are
:class:`~companion.rules.text.Text`; ids (``planet-1``, ``b3``, node ids) are plain strings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from companion.games.time_n_space.components import COLORS
from companion.games.time_n_space.model import (
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
    PHASE_WORDS,
    ROMAN,
    VARIANT_WORDS,
    building_label,
    color_word,
    counter_text,
    place_word,
    symbol_label,
)
from companion.rules.setup import Seat
from companion.rules.text import Text, joined, text

LEGEND = {
    "board": text("Main board"),
    "supply": text("Goods supply"),
    "running": text("sand running"),
    "finished": text("finished: waits to be lifted"),
    "above": text("Above"),
    "collected": text("Collected"),
    "bonus": text("Bonus"),
    "research": text("Research plant"),
    "ship": text("Spaceship"),
    "empty": text("empty"),
}
"""Words the drawing shows beside the data."""


def ring_order(game: GameState) -> list[str]:
    """Every place on the board in the order the wormholes join them, from the first planet.

    The shipped board is a ring (planet, moon, planet, ...); any other topology keeps every
    place, the ones the walk missed last.
    """
    places = [p.planet for p in game.players] + list(game.moons)
    order: list[str] = []
    here: str | None = places[0] if places else None
    while here is not None:
        order.append(here)
        here = next((n for n in game.neighbours(here) if n not in order), None)
    return order + [p for p in places if p not in order]


def _timer(player: PlayerState, t: int, tm: Timer, nodes: dict[tuple[str, int], str]) -> dict[str, Any]:
    state = "running" if tm.running else "finished"
    return {
        "player": player.name,
        "index": t + 1,
        "node": nodes.get((player.name, t + 1), ""),
        "state": state,
        "title": text(
            "{player} timer {index}: {state}",
            player=player.name,
            index=t + 1,
            state=LEGEND["running"] if tm.running else LEGEND["finished"],
        ),
    }


def _on(player: PlayerState, symbol: str, nodes: dict[tuple[str, int], str]) -> dict[str, Any] | None:
    for t, tm in enumerate(player.timers):
        if tm.symbol == symbol:
            return _timer(player, t, tm, nodes)
    return None


def _spot(b: Building, i: int) -> dict[str, Any]:
    content = b.contents[i]
    want = b.spec.spots[i] if i < len(b.spec.spots) else None
    spot: dict[str, Any] = {"want": want, "cube": None, "order": None}
    if isinstance(content, Cube):
        spot["cube"] = content.color
        spot["title"] = text("{color} cube", color=color_word(content.color))
    elif isinstance(content, Order):
        spot["order"] = {"color": content.color, "value": content.value}
        spot["title"] = text("order {counter}", counter=counter_text(content.color, content.value))
    else:
        spot["title"] = text("free ({color})", color=color_word(want)) if want else text("free")
    return spot


def _building(
    game: GameState, p: PlayerState, b: Building, nodes: dict[tuple[str, int], str]
) -> dict[str, Any]:
    return {
        "id": b.id,
        "type": b.type,
        "kind": BUILDING_WORDS[b.type],
        "stage": ROMAN[b.stage],
        "capacity": b.spec.capacity,
        "spots": [_spot(b, i) for i in range(len(b.contents))],
        "timer": _on(p, b.id, nodes),
        "title": building_label(b),
    }


def _player(
    game: GameState, p: PlayerState, colour: str, nodes: dict[tuple[str, int], str]
) -> dict[str, Any]:
    above = Counter(o.color for o in p.above)
    collected = Counter(c.color for c in p.collected)
    tile = p.research
    ship_timer = next((t for t, tm in enumerate(p.timers) if tm.symbol == SHIP), None)
    destination = p.timers[ship_timer].destination if ship_timer is not None else None
    return {
        "name": p.name,
        "colour": colour,
        "title": text("{player}'s control center", player=p.name),
        "buildings": [_building(game, p, b, nodes) for b in p.buildings],
        "research": {
            "tile": None
            if tile is None
            else {"id": tile.id, "type": tile.stage2.type, "kind": BUILDING_WORDS[tile.stage2.type]},
            "timer": _on(p, RESEARCH, nodes),
            "title": text("Research plant: {tile}", tile=LEGEND["empty"])
            if tile is None
            else text(
                "Research plant: {kind} II tile {tile}", kind=BUILDING_WORDS[tile.stage2.type], tile=tile.id
            ),
        },
        "ship": {
            "at": p.ship,
            "to": destination,
            "where": text("→ {place}", place=place_word(game, destination))
            if destination is not None
            else place_word(game, p.ship),
            "timer": _on(p, SHIP, nodes),
            "title": symbol_label(game, p, SHIP, destination),
        },
        "timers": [
            {
                "index": t + 1,
                "node": nodes.get((p.name, t + 1), ""),
                "symbol": tm.symbol,
                "state": "parked" if tm.symbol is None else ("running" if tm.running else "finished"),
                "label": symbol_label(game, p, tm.symbol, tm.destination),
            }
            for t, tm in enumerate(p.timers)
        ],
        "above": [{"color": c, "count": above[c], "name": COLOR_WORDS[c]} for c in COLORS],
        "collected": [{"color": c, "count": collected[c], "name": COLOR_WORDS[c]} for c in COLORS],
        "bonus": list(p.bonus),
        "above_title": text("{count} counter above", "{count} counters above", count=len(p.above)),
        "collected_title": text(
            "{count} counter collected", "{count} counters collected", count=len(p.collected)
        ),
    }


def _place(game: GameState, location: str, colours: dict[str, str]) -> dict[str, Any]:
    owner = game.owner_of(location)
    if owner is not None:
        seat = [p.name for p in game.players].index(owner.name)
        bonus = game.planet_bonus[seat]
        return {
            "id": location,
            "kind": "planet",
            "name": place_word(game, location),
            "player": owner.name,
            "colour": colours.get(owner.name, ""),
            "bonus": bonus,
            "title": place_word(game, location)
            if bonus is None
            else joined([place_word(game, location), text("bonus counter {value}", value=bonus)], " · "),
        }
    height = game.height(location) if location in game.moons else 0
    known = game.top(location) if location in game.moons else None
    top = known.stage2.type if known is not None else None
    tiles = text("{count} tile", "{count} tiles", count=height)
    return {
        "id": location,
        "kind": "moon",
        "name": place_word(game, location),
        "pile": height,
        "top": top,
        "tiles": tiles,
        "title": joined(
            [place_word(game, location), tiles]
            + ([text("top: {kind} II", kind=BUILDING_WORDS[top])] if top is not None else []),
            " · ",
        ),
    }


def _ships(
    game: GameState, colours: dict[str, str], nodes: dict[tuple[str, int], str]
) -> list[dict[str, Any]]:
    ships = []
    for p in game.players:
        t = next((t for t, tm in enumerate(p.timers) if tm.symbol == SHIP), None)
        tm = p.timers[t] if t is not None else None
        to = tm.destination if tm is not None else None
        title: Text = text("{player}'s ship at {place}", player=p.name, place=place_word(game, p.ship))
        if to is not None:
            title = text(
                "{player}'s ship flies {origin} → {destination} (timer {index})",
                player=p.name,
                origin=place_word(game, p.ship),
                destination=place_word(game, to),
                index=(t or 0) + 1,
            )
        ships.append(
            {
                "player": p.name,
                "colour": colours.get(p.name, ""),
                "at": p.ship,
                "to": to,
                "timer": _timer(p, t, tm, nodes) if t is not None and tm is not None else None,
                "title": title,
            }
        )
    return ships


def board_picture(game: GameState, seats: Sequence[Seat], colours: dict[str, str]) -> dict[str, Any]:
    """The picture's data (see the module docstring); JSON-ready once its Texts are."""
    nodes = {(s.player, s.index): s.node for s in seats}
    order = ring_order(game)
    return {
        "variant": game.variant,
        "phase": game.phase,
        "title": text(
            "Time 'n' Space, {variant}: {phase}",
            variant=VARIANT_WORDS[game.variant],
            phase=PHASE_WORDS[game.phase],
        ),
        "board": {
            "places": [_place(game, loc, colours) for loc in order],
            "wormholes": [list(w) for w in game.wormholes],
            "ships": _ships(game, colours, nodes),
        },
        "supply": [
            {"color": c, "name": COLOR_WORDS[c], "count": n} for c, n in zip(COLORS, game.supply, strict=True)
        ],
        "players": [_player(game, p, colours.get(p.name, ""), nodes) for p in game.players],
        "legend": dict(LEGEND),
    }
