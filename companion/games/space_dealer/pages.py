"""The Space Dealer pages: the dashboard's view of the table and each player's own page.

``title`` names the way the table plays ("experienced rules", "basic game"): the referee's variant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.games.space_dealer.engine import final_score, planning_capacity, timer_limit
from companion.games.space_dealer.state import GameState, Goods, Phase
from companion.games.space_dealer.words import (
    PHASE_TEXT,
    built_text,
    card_text,
    field_text,
    goods_text,
    order_text,
    timer_text,
)
from companion.rules.pages import View

if TYPE_CHECKING:
    from companion.games.space_dealer.table import DealerTable


def summary(state: DealerTable, title: str) -> str:
    """One line for the top of every page: the phase and the points."""
    game = state.game
    if not state.started:
        return f"Space Dealer ({title}): waiting for the master clock"
    score = final_score(game)
    points = ", ".join(f"{n} {s.total}" for n, s in score.players.items())
    if game.phase is Phase.OVER:
        return f"Space Dealer: game over \u00b7 {' and '.join(score.winners)} win{'s' if len(score.winners) == 1 else ''} \u00b7 {points}"
    return f"Space Dealer ({title}): {PHASE_TEXT[game.phase]} \u00b7 {points}"


def ring_panel(game: GameState) -> dict[str, Any]:
    """The orbital ring, which is also the victory-point track: markers and ships on each field."""
    rows = []
    for field in range(game.ring_size):
        owner = game.field_owner(field)
        ships = [s.id for s in game.ships if s.field == field]
        ships += [f"{s.id} (arriving)" for s in game.ships if s.destination == field]
        if owner is not None:
            done = [o for o in game.satisfied if o.owner == owner]
            markers = ", ".join(o.by for o in done) or "-"
            built = game.player(owner).built  # type: ignore[union-attr]
            open_orders = [
                b.card
                for b in built
                if game.cards[b.card].order is not None and all(o.order != b.card for o in game.satisfied)
            ]
            orders = "; ".join(order_text(game, c) for c in open_orders) or "-"
            rows.append([field, f"{owner}'s planet", ", ".join(ships) or "-", markers, orders])
        else:
            planet = game.neutral_at(field)
            order = order_text(game, planet.order) if planet and planet.order else "-"
            goods = f" \u00b7 goods left: {goods_text(planet.goods)}" if planet and planet.goods else ""
            rows.append([field, "neutral planet", ", ".join(ships) or "-", "-", order + goods])
    return {
        "kind": "table",
        "title": "Orbital ring (victory-point track)",
        "columns": ["Field", "Planet", "Ships", "Markers", "Open orders"],
        "rows": rows,
    }


def ring_picture(game: GameState) -> dict[str, Any]:
    """The same ring as a picture for the dashboard (panel kind ``ring``): markers and ships per field."""
    fields = []
    for field in range(game.ring_size):
        owner = game.field_owner(field)
        markers = [o.by for o in game.satisfied if owner is not None and o.owner == owner]
        fields.append(
            {
                "label": str(field),
                "owner": owner,
                "markers": markers,
                "ships": [s.id for s in game.ships if s.field == field],
                "arriving": [s.id for s in game.ships if s.destination == field],
            }
        )
    return {
        "kind": "ring",
        "title": "Victory-point track",
        "players": [p.name for p in game.players],
        "fields": fields,
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
        "title": "Victory points",
        "columns": ["#", "Player", "Points", "Markers placed", "Markers left"],
        "rows": rows,
    }


def attack_lines(game: GameState) -> list[str]:
    """Sabotaged timers, rocket blocks and attack markers on cards (rulebook 5.1d, 5.1e)."""
    lines = []
    for p in game.players:
        for t, timer in enumerate(p.timers):
            if timer.sabotaged_by:
                lines.append(
                    f"{p.name}'s timer {t + 1} sabotaged by {timer.sabotaged_by}: runs out with no effect"
                )
        for b in p.built:
            if b.blocked_by:
                lines.append(f"{p.name}'s {card_text(game, b.card)} blocked by {b.blocked_by}'s rocket")
            if b.attack_markers:
                lines.append(
                    f"{p.name}'s {card_text(game, b.card)} holds {b.attack_markers} attack marker(s)"
                )
    return lines or ["no attacks"]


def view(state: DealerTable, title: str) -> View:
    """The dashboard: the ring, the points, every player's timers and cards, the pool and the latest news."""
    game = state.game
    rows = []
    for p in game.players:
        ship = game.ship(p.name)
        depot = next((b for b in p.built if game.card_type(b.card).kind == "storage" and not b.covered), None)
        timers = "; ".join(f"{t + 1}: {timer_text(game, tm)}" for t, tm in enumerate(p.timers))
        rows.append(
            [
                p.name,
                p.tech_level,
                timers,
                ", ".join(card_text(game, c) for c in p.planning) or "-",
                len(p.stack),
                f"{field_text(game, ship.field if ship else None)}: {goods_text(ship.cargo if ship else Goods())}",
                goods_text(depot.stored) if depot else "-",
            ]
        )
    built = [f"{p.name}: " + "; ".join(built_text(game, p)) for p in game.players]
    if not state.started:
        chosen = {p for p, _, _ in state.starts}
        built = [
            f"{p.name}: "
            + ("start chosen" if p.name in chosen else "choosing where to start")
            + " (secret until the master clock starts)"
            for p in game.players
        ]
    common = [
        f"Pool: {goods_text(game.pool)}",
        f"TechLevel 2 stack: {len(game.stack2)} \u00b7 TechLevel 3 stack: {len(game.stack3)}"
        + (f" \u00b7 order cards: {len(game.order_stack)}" if game.order_cards else ""),
        f"Attack markers in the pool: {game.attack_pool} \u00b7 spare timers: {game.timer_pool}",
    ]
    panels = (
        ring_picture(game),
        ring_panel(game),
        score_panel(game),
        {
            "kind": "table",
            "title": "Players",
            "columns": ["Player", "Tech", "Timers", "Planning", "Stack", "Ship", "Depot"],
            "rows": rows,
        },
        {"kind": "lines", "title": "Sabotage and rocket blocks", "lines": attack_lines(game)},
        {"kind": "lines", "title": "Planets", "lines": built},
        {"kind": "lines", "title": "Common pool", "lines": common},
        {"kind": "lines", "title": "Latest", "lines": list(state.last)},
    )
    return View(summary(state, title), panels, {"phase": game.phase.value, "started": state.started})


def player_view(state: DealerTable, player: str, title: str) -> View:
    """A player's phone page: their timers, planning area, cards, goods and planet, then the ring and points."""
    game = state.game
    me = game.player(player)
    if me is None:
        return View(f"{player} does not play in this game")
    limit = timer_limit(game, me)
    timers = []
    for t, tm in enumerate(me.timers):
        line = f"Timer {t + 1}: {timer_text(game, tm)}"
        if t >= limit:
            line += " (no Robot Factory: returns to the pool once free)"
        elif state.node_of(player, t + 1) is None:
            line += " \u00b7 flip a new sandtimer when the hub asks, to pair it"
        timers.append(line)
    planning = [card_text(game, c) for c in me.planning]
    planning.append(f"{len(me.planning)} of {planning_capacity(game, me)} spaces used")
    cards = [
        "Personal stack: " + (", ".join(card_text(game, c) for c in me.stack) or "empty"),
        f"Tech level {me.tech_level}",
    ]
    if me.pending_draw is not None:
        cards.append("Drawn, keep one: " + ", ".join(card_text(game, c) for c in me.pending_draw[1]))
    goods = []
    for ship in game.ships:
        if ship.controller == player:
            where = (
                field_text(game, ship.field)
                if ship.field is not None
                else f"flying to {field_text(game, ship.destination)}"
            )
            goods.append(
                f"{'Spaceship' if ship.id == player else 'Neutral spaceship'} at {where}: "
                f"{goods_text(ship.cargo)} ({ship.cargo.total}/{game.data.cargo_limit})"
            )
    for b in me.built:
        if b.stored or game.card_type(b.card).kind in ("storage", "transport"):
            goods.append(f"{card_text(game, b.card)}: {goods_text(b.stored)}")
    score = final_score(game).players[player]
    headline = (
        f"{player}: {score.total} points, {me.markers_placed} markers placed \u00b7 {summary(state, title)}"
    )
    panels = (
        {"kind": "lines", "title": "My timers", "lines": timers},
        {"kind": "lines", "title": "My planning area", "lines": planning},
        {"kind": "lines", "title": "My cards", "lines": cards},
        {"kind": "lines", "title": "My goods", "lines": goods or ["none"]},
        {"kind": "lines", "title": "My planet", "lines": built_text(game, me)},
        ring_panel(game),
        score_panel(game),
    )
    return View(headline, panels)
