"""The Space Dealer pages: the dashboard's view of the table and each player's own page.

``title`` names the way the table plays ("experienced rules", "basic game"): the referee's variant.
Every word is a :class:`~companion.rules.text.Text`; names and numbers are shown as they are.
The dashboard's picture (``View.extra["picture"]``, drawn by ``static/pictures/space-dealer.js``)
is the orbital ring and each player's planet as data: see :func:`picture`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.games.space_dealer import actions as A
from companion.games.space_dealer.engine import NEUTRAL_SHIP_IDS, final_score, planning_capacity, timer_limit
from companion.games.space_dealer.names import PHASE_TEXT, side_text, type_text
from companion.games.space_dealer.state import GameState, Goods, Phase, PlayerState, Timer, TimerStatus
from companion.games.space_dealer.words import (
    NOTHING,
    built_text,
    card_text,
    field_text,
    goods_text,
    listed,
    order_text,
    ship_text,
    timer_text,
)
from companion.rules.pages import View
from companion.rules.text import Text, as_text, text

if TYPE_CHECKING:
    from companion.games.space_dealer.table import DealerTable


def _points(game: GameState) -> str:
    """ "red 3, yellow 0": names and numbers only."""
    score = final_score(game)
    return ", ".join(f"{n} {s.total}" for n, s in score.players.items())


def summary(state: DealerTable, title: Text) -> Text:
    """One line for the top of every page: the phase and the points."""
    game = state.game
    if not state.started:
        return text("Space Dealer ({variant}): waiting for the master clock", variant=title)
    score = final_score(game)
    if game.phase is Phase.OVER:
        if len(score.winners) == 1:
            return text(
                "Space Dealer: game over \u00b7 {player} wins \u00b7 {points}",
                player=score.winners[0],
                points=_points(game),
            )
        return text(
            "Space Dealer: game over \u00b7 {players} win \u00b7 {points}",
            players=tuple(score.winners),
            points=_points(game),
        )
    return text(
        "Space Dealer ({variant}): {phase} \u00b7 {points}",
        variant=title,
        phase=PHASE_TEXT[game.phase],
        points=_points(game),
    )


def _open_orders(game: GameState, owner: str) -> list[str]:
    """The orders on ``owner``'s built cards nobody has satisfied yet."""
    p = game.player(owner)
    if p is None:
        return []
    return [
        b.card
        for b in p.built
        if game.cards[b.card].order is not None and all(o.order != b.card for o in game.satisfied)
    ]


def _ships_at(game: GameState, field: int) -> list[Text]:
    ships = [ship_text(s.id) for s in game.ships if s.field == field]
    ships += [text("{ship} (arriving)", ship=ship_text(s.id)) for s in game.ships if s.destination == field]
    return ships


def ring_panel(game: GameState) -> dict[str, Any]:
    """The orbital ring, which is also the victory-point track: markers and ships on each field."""
    rows: list[list[Any]] = []
    for field in range(game.ring_size):
        owner = game.field_owner(field)
        ships = listed(_ships_at(game, field))
        if owner is not None:
            done = [o.by for o in game.satisfied if o.owner == owner]
            orders = listed([order_text(game, c) for c in _open_orders(game, owner)], "; ")
            rows.append([field, text("{player}'s planet", player=owner), ships, listed(done), orders])
        else:
            planet = game.neutral_at(field)
            order = order_text(game, planet.order) if planet and planet.order else NOTHING
            if planet and planet.goods:
                order = text(
                    "{order} \u00b7 goods left: {goods}", order=order, goods=goods_text(planet.goods)
                )
            rows.append([field, text("neutral planet"), ships, NOTHING, order])
    return {
        "kind": "table",
        "title": text("Orbital ring (victory-point track)"),
        "columns": [text("Field"), text("Planet"), text("Ships"), text("Markers"), text("Open orders")],
        "rows": rows,
    }


def score_panel(game: GameState) -> dict[str, Any]:
    """Points, by the same function as ``companion score space-dealer``, and the markers left."""
    score = final_score(game)
    rows = []
    for rank, n in enumerate(score.ranking, start=1):
        p = game.player(n)
        placed = p.markers_placed if p else 0
        rows.append([rank, n, score.players[n].total, placed, game.data.placeable_markers - placed])
    return {
        "kind": "table",
        "title": text("Victory points"),
        "columns": ["#", text("Player"), text("Points"), text("Markers placed"), text("Markers left")],
        "rows": rows,
    }


def attack_lines(game: GameState) -> list[Text]:
    """Sabotaged timers, rocket blocks and attack markers on cards (rulebook 5.1d, 5.1e)."""
    lines: list[Text] = []
    for p in game.players:
        for t, timer in enumerate(p.timers):
            if timer.sabotaged_by:
                lines.append(
                    text(
                        "{player}'s timer {number} sabotaged by {other}: runs out with no effect",
                        player=p.name,
                        number=t + 1,
                        other=timer.sabotaged_by,
                    )
                )
        for b in p.built:
            card = card_text(game, b.card)
            if b.blocked_by:
                lines.append(
                    text(
                        "{player}'s {card} blocked by {other}'s rocket",
                        player=p.name,
                        card=card,
                        other=b.blocked_by,
                    )
                )
            if b.attack_markers:
                lines.append(
                    text(
                        "{player}'s {card} holds {count} attack marker",
                        "{player}'s {card} holds {count} attack markers",
                        player=p.name,
                        card=card,
                        count=b.attack_markers,
                    )
                )
    return lines or [text("no attacks")]


def _depot_goods(game: GameState, p: PlayerState) -> Goods | None:
    depot = next((b for b in p.built if game.card_type(b.card).kind == "storage" and not b.covered), None)
    return depot.stored if depot else None


def view(state: DealerTable, title: Text) -> View:
    """The dashboard: the picture; then the ring, the points, every player's timers and cards, the pool and
    the latest news as tables behind the page's details toggle."""
    game = state.game
    rows = []
    for p in game.players:
        ship = game.ship(p.name)
        depot = _depot_goods(game, p)
        timers = listed(
            [
                text("{number}: {state}", number=t + 1, state=timer_text(game, tm))
                for t, tm in enumerate(p.timers)
            ],
            "; ",
        )
        rows.append(
            [
                p.name,
                p.tech_level,
                timers,
                listed([card_text(game, c) for c in p.planning]),
                len(p.stack),
                text(
                    "{where}: {goods}",
                    where=field_text(game, ship.field if ship else None),
                    goods=goods_text(ship.cargo if ship else Goods()),
                ),
                goods_text(depot) if depot is not None else NOTHING,
            ]
        )
    built = [
        text("{player}: {planet}", player=p.name, planet=listed(built_text(game, p), "; "))
        for p in game.players
    ]
    if not state.started:
        chosen = {p for p, _, _ in state.starts}
        built = [
            text("{player}: start chosen (secret until the master clock starts)", player=p.name)
            if p.name in chosen
            else text(
                "{player}: choosing where to start (secret until the master clock starts)", player=p.name
            )
            for p in game.players
        ]
    stacks = text(
        "TechLevel 2 stack: {level2} \u00b7 TechLevel 3 stack: {level3}",
        level2=len(game.stack2),
        level3=len(game.stack3),
    )
    if game.order_cards:
        stacks = text("{stacks} \u00b7 order cards: {cards}", stacks=stacks, cards=len(game.order_stack))
    common = [
        text("Pool: {goods}", goods=goods_text(game.pool)),
        stacks,
        text(
            "Attack markers in the pool: {markers} \u00b7 spare timers: {timers}",
            markers=game.attack_pool,
            timers=game.timer_pool,
        ),
    ]
    panels = (
        ring_panel(game),
        score_panel(game),
        {
            "kind": "table",
            "title": text("Players"),
            "columns": [
                text("Player"),
                text("Tech"),
                text("Timers"),
                text("Planning"),
                text("Stack"),
                text("Ship"),
                text("Depot"),
            ],
            "rows": rows,
        },
        {"kind": "lines", "title": text("Sabotage and rocket blocks"), "lines": attack_lines(game)},
        {"kind": "lines", "title": text("Planets"), "lines": built},
        {"kind": "lines", "title": text("Common pool"), "lines": common},
        {"kind": "lines", "title": text("Latest events"), "lines": [as_text(n) for n in state.last]},
    )
    extra = {"phase": game.phase.value, "started": state.started, "picture": picture(state)}
    return View(summary(state, title), panels, extra)


def player_view(state: DealerTable, player: str, title: Text) -> View:
    """A player's phone page: their timers, planning area, cards, goods and planet, then the ring and points."""
    game = state.game
    me = game.player(player)
    if me is None:
        return View(text("{player} does not play in this game", player=player))
    limit = timer_limit(game, me)
    timers = []
    for t, tm in enumerate(me.timers):
        line = text("Timer {number}: {state}", number=t + 1, state=timer_text(game, tm))
        if t >= limit:
            line = text("{timer} (no Robot Factory: returns to the pool once free)", timer=line)
        elif state.node_of(player, t + 1) is None:
            line = text("{timer} \u00b7 flip a new sandtimer when the hub asks, to pair it", timer=line)
        timers.append(line)
    planning: list[Text] = [card_text(game, c) for c in me.planning]
    planning.append(
        text("{used} of {spaces} spaces used", used=len(me.planning), spaces=planning_capacity(game, me))
    )
    cards = [
        text(
            "Personal stack: {cards}",
            cards=listed([card_text(game, c) for c in me.stack]) if me.stack else text("empty"),
        ),
        text("Tech level {level}", level=me.tech_level),
    ]
    if me.pending_draw is not None:
        cards.append(
            text("Drawn, keep one: {cards}", cards=listed([card_text(game, c) for c in me.pending_draw[1]]))
        )
    goods: list[Text] = []
    for ship in game.ships:
        if ship.controller == player:
            where = (
                field_text(game, ship.field)
                if ship.field is not None
                else text("flying to {field}", field=field_text(game, ship.destination))
            )
            cargo, load, limit = goods_text(ship.cargo), ship.cargo.total, game.data.cargo_limit
            if ship.id == player:
                line = text(
                    "Spaceship at {where}: {goods} ({load}/{limit})",
                    where=where,
                    goods=cargo,
                    load=load,
                    limit=limit,
                )
            else:
                line = text(
                    "Neutral spaceship at {where}: {goods} ({load}/{limit})",
                    where=where,
                    goods=cargo,
                    load=load,
                    limit=limit,
                )
            goods.append(line)
    for b in me.built:
        if b.stored or game.card_type(b.card).kind in ("storage", "transport"):
            goods.append(text("{card}: {goods}", card=card_text(game, b.card), goods=goods_text(b.stored)))
    score = final_score(game).players[player]
    headline = text(
        "{player}: {points} points, {markers} markers placed \u00b7 {summary}",
        player=player,
        points=score.total,
        markers=me.markers_placed,
        summary=summary(state, title),
    )
    panels = (
        {"kind": "lines", "title": text("My timers"), "lines": timers},
        {"kind": "lines", "title": text("My planning area"), "lines": planning},
        {"kind": "lines", "title": text("My cards"), "lines": cards},
        {"kind": "lines", "title": text("My goods"), "lines": goods or [text("none")]},
        {"kind": "lines", "title": text("My planet"), "lines": built_text(game, me)},
        ring_panel(game),
        score_panel(game),
    )
    return View(headline, panels)


# --- the picture ---------------------------------------------------------------------------------


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


def _timers(state: DealerTable, game: GameState, p: PlayerState) -> list[dict[str, Any]]:
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
                "node": state.node_of(p.name, t + 1),
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


def _player_picture(state: DealerTable, game: GameState, p: PlayerState, points: int) -> dict[str, Any]:
    timers = _timers(state, game, p)
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


def picture(state: DealerTable) -> dict[str, Any]:
    """What the dashboard draws: the orbital ring (also the victory-point track) and each player's planet.

    The ring's fields carry the planet (a player's, or neutral with its face-up order and the goods
    left there), the victory-point markers placed on the owner's orders and the spaceships docked or
    arriving. Each player has their points, tech level, power plants, built cards (with the timer
    standing on a card, running or run out), timers, spaceship and cargo, and planning area.
    """
    game = state.game
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
                "open_orders": len(_open_orders(game, owner)) if owner is not None else 0,
                "order": _order(game, planet.order) if planet is not None else None,
                "goods": _cubes(planet.goods) if planet is not None else [],
                "ships": ships,
            }
        )
    return {
        "started": state.started,
        "phase": game.phase.value,
        "phase_label": PHASE_TEXT[game.phase] if state.started else text("waiting for the master clock"),
        "ring": fields,
        "players": [_player_picture(state, game, p, score.players[p.name].total) for p in game.players],
        "pool": _cubes(game.pool),
        "colours": list(game.data.colours),
        "stacks": {"2": len(game.stack2), "3": len(game.stack3), "orders": len(game.order_stack)},
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
