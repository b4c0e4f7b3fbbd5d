"""The dashboard's picture of a Space Dealer table: the orbital ring and each player's planet, as data.

``companion/games/space_dealer/picture.js`` draws it (``View.extra["picture"]``). Every word in it is
a :class:`~companion.rules.text.Text`; names and numbers are shown as they are.
"""

from __future__ import annotations

from typing import Any

from companion.games.space_dealer import model as A
from companion.games.space_dealer.board import final_score, open_orders, planning_capacity, timer_limit
from companion.games.space_dealer.model import (
    NEUTRAL_SHIP_IDS,
    GameState,
    Goods,
    PlayerState,
    Timer,
    TimerStatus,
)
from companion.games.space_dealer.words import (
    PHASE_TEXT,
    card_text,
    field_text,
    order_text,
    ship_text,
    side_text,
    timer_text,
    type_text,
)
from companion.rules.context import Context
from companion.rules.text import text


def _cubes(goods: Goods) -> list[dict[str, Any]]:
    """Goods as coloured cubes: ``[{"colour": "red", "count": 2}]``."""
    return [{"colour": c, "count": n} for c, n in goods.items]


def _order(game: GameState, card: str | None) -> dict[str, Any] | None:
    """An order as the goods it wants and its printed points (3.4, 5.3)."""
    if card is None:
        return None
    spec = game.order_cards.get(card)
    if spec is None:
        c = game.cards.get(card)
        spec = c.order if c is not None else None
    if spec is None:
        return None
    return {
        "card": card,
        "goods": [{"colour": c, "count": n} for c, n in spec.goods],
        "points": list(spec.points),
        "text": order_text(game, card),
        "done": any(o.order == card for o in game.satisfied),
    }


def _timer_space(timer: Timer) -> dict[str, Any]:
    """Where a timer stands (3.2): the planet, a card in the planning area or the action row, a spaceship."""
    job = timer.job
    if timer.status is TimerStatus.INACTIVE or job is None:
        return {"on": "below"}
    if isinstance(job, A.RaiseTechLevel):
        return {"on": "planet"}
    if isinstance(job, (A.BuildCard, A.DiscardCard)):
        return {"on": "planning", "card": job.card}
    if isinstance(job, A.UseCard):
        return {"on": "card", "card": job.card}
    return {"on": "ship", "ship": job.ship, "to": job.to}


def _timers(game: GameState, p: PlayerState) -> list[dict[str, Any]]:
    limit = timer_limit(game, p)
    out = []
    for t, timer in enumerate(p.timers):
        status = timer.status.value
        if timer.status is TimerStatus.ACTIVE:
            word = text("running")
        elif timer.status is TimerStatus.USABLE:
            word = text("run out: choose a build site")
        else:
            word = text("free")
        out.append(
            {
                "number": t + 1,
                "name": text("Timer {number}", number=t + 1),
                "node": game.node_of(p.name, t + 1),
                "status": status,
                "state": word,
                "label": timer_text(game, timer),
                "sabotaged_by": timer.sabotaged_by,
                "clears_block": timer.clears_block,
                "usable": t < limit,
                **_timer_space(timer),
            }
        )
    return out


def _player_picture(game: GameState, p: PlayerState, points: int) -> dict[str, Any]:
    timers = _timers(game, p)
    on_card = {t["card"]: t["number"] for t in timers if t["on"] in ("card", "planning")}
    plants = []
    for side, stack in zip(("left", "right"), p.plants, strict=True):
        plants.append(
            {
                "side": side,
                "side_label": side_text(side),
                "cards": [{"card": c, "name": type_text(game.cards[c].type)} for c in stack],
            }
        )
    cards = []
    for b in sorted(p.built, key=lambda b: b.x):
        kind = game.card_type(b.card)
        cards.append(
            {
                "card": b.card,
                "name": card_text(game, b.card),
                "colour": game.cards[b.card].colour or None,
                "kind": kind.kind,
                "x": b.x,
                "layout": kind.layout,
                "has_timer_space": kind.timer,
                "covered": b.covered,
                "blocked_by": b.blocked_by,
                "attack_markers": b.attack_markers,
                "goods": _cubes(b.stored),
                "blocked": text("blocked by {player}'s rocket", player=b.blocked_by)
                if b.blocked_by
                else None,
                "order": _order(game, b.card),
                "timer": on_card.get(b.card),
            }
        )
    ship = game.ship(p.name)
    ship_data = None
    if ship is not None:
        ship_data = {
            "id": ship.id,
            "field": ship.field,
            "destination": ship.destination,
            "where": field_text(game, ship.field)
            if ship.field is not None
            else text("flying to {field}", field=field_text(game, ship.destination)),
            "cargo": _cubes(ship.cargo),
            "cargo_total": ship.cargo.total,
            "timer": next((t["number"] for t in timers if t["on"] == "ship"), None),
        }
    neutral_ship = next(
        (
            {"id": s.id, "name": ship_text(s.id), "field": s.field, "cargo": _cubes(s.cargo)}
            for s in game.ships
            if s.controller == p.name and s.id in NEUTRAL_SHIP_IDS
        ),
        None,
    )
    return {
        "name": p.name,
        "points": points,
        "markers_placed": p.markers_placed,
        "markers_left": game.data.placeable_markers - p.markers_placed,
        "tech_level": p.tech_level,
        "max_tech_level": game.data.max_tech_level,
        "tech_label": text("Tech level {level}", level=p.tech_level),
        "points_label": text("{count} victory point", "{count} victory points", count=points),
        "markers_label": text(
            "{count} victory-point marker left",
            "{count} victory-point markers left",
            count=game.data.placeable_markers - p.markers_placed,
        ),
        "stack_label": text("stack: {cards}", cards=len(p.stack)),
        "planet_timer": next((t["number"] for t in timers if t["on"] == "planet"), None),
        "plants": plants,
        "cards": cards,
        "timers": timers,
        "ship": ship_data,
        "neutral_ship": neutral_ship,
        "planning": [{"card": c, "name": card_text(game, c), "timer": on_card.get(c)} for c in p.planning],
        "planning_capacity": planning_capacity(game, p),
        "stack": len(p.stack),
        "neutral_orders": len(p.neutral_cards),
    }


def picture(game: GameState, ctx: Context) -> dict[str, Any]:
    """What the dashboard draws: the orbital ring (also the victory-point track) and each player's planet.

    The ring's fields carry the planet (a player's, or neutral with its face-up order and the goods
    left there), the victory-point markers placed on the owner's orders and the spaceships docked or
    arriving. Each player has their points, tech level, power plants, built cards (with the timer
    standing on a card, running or run out), timers, spaceship and cargo, and planning area.
    """
    score = final_score(game)
    fields = []
    for field in range(game.ring_size):
        owner = game.field_owner(field)
        planet = game.neutral_at(field) if owner is None else None
        ships = []
        for s in game.ships:
            if s.field == field or s.destination == field:
                ships.append(
                    {
                        "id": s.id,
                        "name": ship_text(s.id),
                        "colour": s.controller if s.id not in NEUTRAL_SHIP_IDS else None,
                        "controller": s.controller,
                        "arriving": s.destination == field,
                        "cargo": _cubes(s.cargo),
                    }
                )
        fields.append(
            {
                "field": field,
                "owner": owner,
                "label": text("{player}'s planet", player=owner)
                if owner is not None
                else text("neutral planet"),
                "markers": [o.by for o in game.satisfied if owner is not None and o.owner == owner],
                "open_orders": len(open_orders(game, owner)) if owner is not None else 0,
                "order": _order(game, planet.order) if planet is not None else None,
                "goods": _cubes(planet.goods) if planet is not None else [],
                "ships": ships,
            }
        )
    return {
        "started": ctx.started,
        "phase": game.phase.value,
        "phase_label": PHASE_TEXT[game.phase] if ctx.started else text("waiting for the master clock"),
        "ring": fields,
        "players": [_player_picture(game, p, score.players[p.name].total) for p in game.players],
        "pool": _cubes(game.pool),
        "colours": list(game.data.colours),
        "stacks": {"2": len(game.stack(2)), "3": len(game.stack(3)), "orders": len(game.orders)},
        "words": {
            "ring": text("Orbital ring (victory-point track)"),
            "pool": text("Common pool"),
            "planning": text("Planning area"),
            "timers": text("Timers"),
            "ship": text("Spaceship"),
            "built_over": text("built over"),
            "free_space": text("free space"),
            "planet": text("Planet"),
        },
    }
