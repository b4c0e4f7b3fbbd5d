"""The Space Dealer pages: the dashboard's view of the table, each player's page and their phone's buttons.

``title`` names the way the table plays ("experienced rules", "basic game"): the referee's variant.
Every word is a :class:`~companion.rules.text.Text`; names and numbers are shown as they are. The
dashboard's picture is :mod:`.picture`.

The phone's buttons are :mod:`.menus`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from companion.games.space_dealer.board import (
    final_score,
    open_orders,
    planning_capacity,
    timer_limit,
)
from companion.games.space_dealer.model import GameState, Goods, Phase, PlayerState
from companion.games.space_dealer.picture import picture
from companion.games.space_dealer.words import (
    NOTHING,
    PHASE_TEXT,
    built_text,
    card_text,
    field_text,
    goods_text,
    listed,
    order_text,
    ship_text,
    timer_text,
)
from companion.rules.context import Context
from companion.rules.pages import View
from companion.rules.text import Text, text, verbatim

if TYPE_CHECKING:
    pass

LATEST = 8
"""How many of the latest happenings the dashboard lists."""


def _points(game: GameState) -> str:
    """ "red 3, yellow 0": names and numbers only."""
    score = final_score(game)
    return ", ".join(f"{n} {s.total}" for n, s in score.players.items())


def summary(game: GameState, ctx: Context, title: Text) -> Text:
    """One line for the top of every page: the phase and the points."""
    if not ctx.started:
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
            orders = listed([order_text(game, c) for c in open_orders(game, owner)], "; ")
            rows.append([field, text("{player}'s planet", player=owner), ships, listed(done), orders])
        else:
            planet = game.neutral_at(field)
            order = order_text(game, planet.order) if planet and planet.order else NOTHING
            if planet and planet.awaiting:
                order = text("order card to turn up")
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


def latest(ctx: Context) -> list[Text]:
    """The latest happenings, oldest first: the notes of the latest steps, one line per thing that happened."""
    lines: list[Text] = []
    for note in ctx.recent:
        lines.extend(_parts(note))
    return lines[-LATEST:]


_JOINED = re.compile(r"\{p0\}(; \{p\d+\})*")


def _parts(note: Text) -> list[Text]:
    """The happenings a step's note joins ("{p0}; {p1}", or an old log's English sentence "a; b"),
    each on its own."""
    if note.verbatim:
        return [verbatim(part) for part in note.msgid.split("; ") if part]
    if not _JOINED.fullmatch(note.msgid):
        return [note] if note else []
    return [part for _, value in note.args if isinstance(value, Text) for part in _parts(value)]


def view(game: GameState, ctx: Context, title: Text) -> View:
    """The dashboard: the picture; then the ring, the points, every player's timers and cards, the pool and
    the latest news as tables behind the page's details toggle."""
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
    if not ctx.started:
        chosen = {p.name for p in game.players if p.start is not None}
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
        level2=len(game.stack(2)),
        level3=len(game.stack(3)),
    )
    if game.order_cards:
        stacks = text("{stacks} \u00b7 order cards: {cards}", stacks=stacks, cards=len(game.orders))
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
        {"kind": "lines", "title": text("Latest events"), "lines": latest(ctx)},
    )
    extra = {"phase": game.phase.value, "started": ctx.started, "picture": picture(game, ctx)}
    return View(summary(game, ctx, title), panels, extra)


def player_view(game: GameState, ctx: Context, player: str, title: Text) -> View:
    """A player's phone page: their timers, planning area, cards, goods and planet, then the ring and points."""
    me = game.player(player)
    if me is None:
        return View(text("{player} does not play in this game", player=player))
    limit = timer_limit(game, me)
    timers = []
    for t, tm in enumerate(me.timers):
        line = text("Timer {number}: {state}", number=t + 1, state=timer_text(game, tm))
        if t >= limit:
            line = text("{timer} (no Robot Factory: returns to the pool once free)", timer=line)
        elif game.node_of(player, t + 1) is None:
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
    if me.pending_draw is not None and me.pending_draw[1]:
        cards.append(
            text("Drawn, keep one: {cards}", cards=listed([card_text(game, c) for c in me.pending_draw[1]]))
        )
    elif me.pending_draw is not None:
        cards.append(
            text("Drawn from the TechLevel {level} stack: tap the card you keep", level=me.pending_draw[0])
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
        summary=summary(game, ctx, title),
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
