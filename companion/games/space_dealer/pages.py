"""The Space Dealer pages: the dashboard's view of the table, each player's page and their phone's buttons.

``title`` names the way the table plays ("experienced rules", "basic game"): the referee's variant.
Every word is a :class:`~companion.rules.text.Text`; names and numbers are shown as they are. The
dashboard's picture is :mod:`.picture`.

The phone's buttons are *previews*: a button is offered when the engine would accept its move now
(``apply`` on the current state, whose answer is thrown away). Nothing here decides a step; tapping
a button posts its move, which the referee then decides once.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any

from companion.games.space_dealer import model as A
from companion.games.space_dealer.board import (
    final_score,
    open_orders,
    planning_capacity,
    site_problem,
    timer_limit,
)
from companion.games.space_dealer.engine import apply
from companion.games.space_dealer.model import GameState, Goods, Phase, PlayerState, Ship, TimerStatus
from companion.games.space_dealer.picture import picture
from companion.games.space_dealer.words import (
    NOTHING,
    PHASE_TEXT,
    built_text,
    card_text,
    colour_text,
    field_text,
    goods_text,
    job_text,
    listed,
    order_text,
    ship_text,
    side_text,
    site_text,
    timer_text,
    type_text,
)
from companion.rules.context import Context
from companion.rules.outcome import Rejected
from companion.rules.pages import MenuItem, View
from companion.rules.text import Text, text

if TYPE_CHECKING:
    from companion.games.space_dealer.referee import SpaceDealerReferee

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
    """The texts a step's note joins ("{p0}; {p1}"), each on its own."""
    if not _JOINED.fullmatch(note.msgid):
        return [note]
    return [value for _, value in note.args if isinstance(value, Text)]


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


TIMER_FIELDS = ("timer", "target_timer")
"""Fields of moves that hold a timer number (from 0; a button's id numbers them as at the table)."""


# --- the buttons ---------------------------------------------------------------------------------


def menu(
    referee: SpaceDealerReferee, game: GameState, ctx: Context, player: str, intents: dict[str, Any]
) -> list[MenuItem]:
    """The buttons of ``player``'s phone, what the player does next first.

    Before the clock: the secret start choice. Then a finished build waiting for its site, a drawn
    card to keep, orders the ship can deliver now (points), each timer's next job (the usual jobs
    first: use a card, build each planned card, fly, raise the tech level; then the other sites and
    discards), and the other free actions: plan a card, goods, attacks, giving and trading.
    """
    me = game.player(player)
    if me is None or game.phase is Phase.OVER:
        return []
    if not ctx.started:
        return _start_items(referee, game, me)
    items: list[MenuItem] = []
    for t, timer in enumerate(me.timers):
        if timer.status is TimerStatus.USABLE and isinstance(timer.job, A.BuildCard):
            items += _place_items(game, me, t, timer.job.card)
    if game.phase is not Phase.RUNNING:
        return items
    free = _free_items(referee, game, me)
    items += free.get(KEEP, [])
    items += free.get(ORDERS, [])
    for t in range(len(me.timers)):
        node = game.node_of(player, t + 1)
        if node is not None and t < timer_limit(game, me):
            items += _job_items(game, me, t, node, intents.get(node))
    for group in (PLAN, GOODS, ATTACK, GIVE):
        items += free.get(group, [])
    return items


def _start_items(referee: SpaceDealerReferee, game: GameState, me: PlayerState) -> list[MenuItem]:
    """Before the clock: the secret start choice, Generator side and first Mine (rulebook 2)."""
    if referee.prepared is not None:
        return []
    current = ("left" if me.plants[0] else "right", game.cards[me.built[0].card].colour if me.built else "")
    colours = sorted(
        {
            game.cards[c].colour
            for c in (*me.stack, *(b.card for b in me.built))
            if game.cards[c].type == "Mine"
        }
    )
    group = text("Start (secret until the clock starts): Generator and first Mine")
    return [
        MenuItem(
            f"start:{side}:{colour}",
            text("Generator {side}, {colour} Mine", side=side_text(side), colour=colour_text(colour)),
            group,
            action=A.ChooseStart(side, colour),
            selected=(side, colour) == current,
        )
        for side in ("left", "right")
        for colour in colours
    ]


def _job_items(game: GameState, me: PlayerState, t: int, node: str, intent: Any) -> list[MenuItem]:
    """The jobs timer ``t`` could take now (when it is running: once it has run out), the usual ones first."""
    timer = me.timers[t]
    base = game
    if timer.status is TimerStatus.USABLE:
        return []
    if timer.status is TimerStatus.ACTIVE:
        done = apply(game, A.TimerRanOut(me.name, t))
        if isinstance(done, Rejected) or done.state.phase is not Phase.RUNNING:
            return []
        base = done.state
    me = base.player(me.name)  # type: ignore[assignment]
    group = text("Timer {number}: next job", number=t + 1)
    items: list[MenuItem] = []
    for job in _candidate_jobs(base, me):
        if isinstance(apply(base, A.StartJob(me.name, t, job)), Rejected):
            continue
        items.append(
            MenuItem(
                f"t{t + 1}:{_key(job)}",
                job_text(base, job),
                group,
                intent=job,
                node=node,
                selected=job == intent,
            )
        )
    return items


def _candidate_jobs(game: GameState, me: PlayerState) -> list[A.Job]:
    """Jobs worth listing for a timer of ``me``, the usual ones first; only those the engine accepts
    become buttons.

    First one of each kind a player usually wants: use each card with a timer space (production
    first), build each planned card at its first good site, fly the ship to the neighbouring fields,
    raise the tech level. Then the rest: other colours and exchanges, other build sites, far
    flights, discards.
    """
    usual: list[A.Job] = []
    rest: list[A.Job] = []
    kinds = ("mine", "converter")
    for b in sorted(me.built, key=lambda b: (game.card_type(b.card).kind not in kinds, b.x)):
        t = game.card_type(b.card)
        if b.covered or not t.timer:
            continue
        if t.kind == "mine" and t.colour == "any" and b.blocked_by is None:
            choices = [A.UseCard(b.card, colour=c) for c in game.data.colours]
        elif t.kind == "converter" and b.blocked_by is None:
            colours = game.data.colours
            choices = [A.UseCard(b.card, exchanges=((g, k),)) for g in colours for k in colours if g != k]
        else:
            choices = [A.UseCard(b.card)]
        usual += choices[:1]
        rest += choices[1:]
    low, high = game.data.x_range
    for card in me.planning:
        sites = (-2, 2) if game.card_type(card).layout == "plant" else range(low, high + 1)
        good = [A.BuildCard(card, x) for x in sites if site_problem(game, me, card, x) is None][:8]
        usual += good[:1]
        rest += good[1:]
    for ship in game.ships:
        if ship.controller != me.name or ship.field is None:
            continue
        ring, here = game.ring_size, ship.field
        near = [(here + 1) % ring, (here - 1) % ring]
        usual += [A.MoveShip(ship.id, f) for f in dict.fromkeys(near) if f != here]
        if not ship.cargo:  # an empty ship flies anywhere (3.2.4): the nearer fields first
            far = sorted(range(ring), key=lambda f: (min((f - here) % ring, (here - f) % ring), f))
            rest += [A.MoveShip(ship.id, f) for f in far if f != here and f not in near]
    usual.append(A.RaiseTechLevel())
    rest += [A.DiscardCard(card) for card in me.planning]  # the engine refuses them in the basic game
    return usual + rest


KEEP, ORDERS, PLAN, GOODS, ATTACK, GIVE = "keep", "orders", "plan", "goods", "attack", "give"
"""The kinds of free actions, in the order the phone lists them (after orders come the timers)."""


def _key(value: Any) -> str:
    """A button's id from the move or job it posts: its class and its plain values (timers numbered 1, 2, 3),
    then its places and goods as ``name=...``."""
    plain, extra = [type(value).__name__], []
    for f in fields(value):
        v = getattr(value, f.name)
        if is_dataclass(v):
            extra.append(f"{f.name}={_described(v)}")
        elif not isinstance(v, tuple):
            plain.append(str(v + 1 if f.name in TIMER_FIELDS and isinstance(v, int) else v))
    return ":".join(plain + extra)


def _described(value: Any) -> str:
    if isinstance(value, Goods):
        return str(value.as_dict())
    return str({"type": type(value).__name__, **{f.name: getattr(value, f.name) for f in fields(value)}})


def _offer(game: GameState, player: str, items: list[MenuItem], move: Any, label: Text, group: Text) -> None:
    """Add a button for ``move`` if the engine would accept it now (a preview: nothing is decided)."""
    if isinstance(apply(game, A.Act(player, move)), Rejected):
        return
    items.append(MenuItem(_key(move), label, group, action=move))


def _place_items(game: GameState, me: PlayerState, t: int, card: str) -> list[MenuItem]:
    """A finished build waiting for its site: each site the card can go, or giving the build up (3.2.2)."""
    items: list[MenuItem] = []
    group = text("Timer {number}: place {card}", number=t + 1, card=card_text(game, card))
    low, high = game.data.x_range
    sites = (-2, 2) if game.card_type(card).layout == "plant" else range(low, high + 1)
    for x in sites:
        site = site_text(game, card, x)
        _offer(game, me.name, items, A.PlaceBuiltCard(t, x), text("build {site}", site=site), group)
    _offer(game, me.name, items, A.AbandonJob(t), text("give the build up"), group)
    return items


def _ship_name(ship: Ship, me: str) -> Text:
    """A spaceship on a button: "ship" for one's own, else whose it is."""
    if ship.id == me:
        return text("ship")
    if ship.controller is None or ship.id != ship.controller:
        return ship_text(ship.id)
    return text("{player}'s ship", player=ship.controller)


def _free_items(referee: SpaceDealerReferee, game: GameState, me: PlayerState) -> dict[str, list[MenuItem]]:
    """The free actions the engine would accept now, by kind (see :data:`KEEP` ...)."""
    found: dict[str, list[MenuItem]] = {}
    name = me.name
    groups = {
        KEEP: text("Keep one drawn card"),
        ORDERS: text("Orders"),
        PLAN: text("Plan a card"),
        GOODS: text("Goods"),
        ATTACK: text("Attack"),
        GIVE: text("Give or trade cards (by agreement)"),
    }

    def offer(move: Any, label: Text, kind: str) -> None:
        _offer(game, name, found.setdefault(kind, []), move, label, groups[kind])

    for card in me.stack:
        offer(A.PlayCard(card), text("plan {card}", card=card_text(game, card)), PLAN)
    if me.pending_draw is not None:
        for card in me.pending_draw[1]:
            offer(A.KeepDrawnCard(card), text("keep {card}", card=card_text(game, card)), KEEP)
    else:
        for level in (2, 3):
            offer(A.DrawTechCards(level), text("draw 2 TechLevel {level} cards", level=level), PLAN)
    ships = [s for s in game.ships if s.controller == name and s.field is not None]
    for ship in ships:
        mine = A.InShip(ship.id)
        here = ship.field
        label = _ship_name(ship, name)
        owner = game.field_owner(here)  # type: ignore[arg-type]
        targets: list[tuple[Any, Text]] = []
        if owner == name:
            targets.append((A.InDepot(name), type_text("Depot")))
            targets += [
                (A.OnProbe(name, b.card), type_text("Transport Probe"))
                for b in me.built
                if game.card_type(b.card).kind == "transport" and not b.covered
            ]
        neutral = game.neutral_at(here)  # type: ignore[arg-type]
        targets += referee.neutral_places(game, here)  # type: ignore[arg-type]
        targets += [
            (A.InShip(s.id), _ship_name(s, name)) for s in game.ships if s.field == here and s.id != ship.id
        ]
        if ship.cargo and targets:
            offer(
                A.TransferGoods(mine, targets[0][0], ship.cargo),
                text("{source} \u2192 {target}: all", source=label, target=targets[0][1]),
                GOODS,
            )
        for colour, _ in ship.cargo.items:
            one = Goods.of({colour: 1})
            for target, where in targets:
                offer(
                    A.TransferGoods(mine, target, one),
                    text(
                        "{source} \u2192 {target}: 1 {colour}",
                        source=label,
                        target=where,
                        colour=colour_text(colour),
                    ),
                    GOODS,
                )
            offer(
                A.ReturnGoods(mine, one),
                text("{source}: return 1 {colour} to the pool", source=label, colour=colour_text(colour)),
                GOODS,
            )
        for source, where in targets:
            if isinstance(source, A.InShip):
                continue
            held = _held(game, source)
            for colour, _ in held.items:
                offer(
                    A.TransferGoods(source, mine, Goods.of({colour: 1})),
                    text(
                        "{source} \u2192 {target}: 1 {colour}",
                        source=where,
                        target=label,
                        colour=colour_text(colour),
                    ),
                    GOODS,
                )
        if owner is not None and owner != name:
            for b in game.player(owner).built:  # type: ignore[union-attr]
                if game.cards[b.card].order is not None:
                    offer(
                        A.SatisfyOrder(ship.id, b.card),
                        text(
                            "deliver {order} ({player}'s {card})",
                            order=order_text(game, b.card),
                            player=owner,
                            card=card_text(game, b.card),
                        ),
                        ORDERS,
                    )
        if neutral is not None and neutral.order is not None:
            offer(
                A.SatisfyOrder(ship.id, neutral.order),
                text("deliver {order} (neutral order)", order=order_text(game, neutral.order)),
                ORDERS,
            )
    others = [q for q in game.players if q.name != name]
    for q in others:
        for t, timer in enumerate(q.timers):
            if timer.status is TimerStatus.ACTIVE:
                offer(
                    A.Sabotage(q.name, t),
                    text(
                        "sabotage {player}'s timer {number} ({job})",
                        player=q.name,
                        number=t + 1,
                        job=job_text(game, timer.job),
                    ),
                    ATTACK,
                )
        for b in q.built:
            if game.card_type(b.card).timer and not b.covered:
                offer(
                    A.LaunchRocket(q.name, b.card),
                    text("rocket on {player}'s {card}", player=q.name, card=card_text(game, b.card)),
                    ATTACK,
                )
    for card in me.planning:
        for q in others:
            offer(
                A.GiveCard(q.name, card),
                text("give {card} to {player}", card=card_text(game, card), player=q.name),
                GIVE,
            )
            for theirs in q.planning:
                offer(
                    A.TradeCards(card, q.name, theirs),
                    text(
                        "trade {card} for {player}'s {theirs}",
                        card=card_text(game, card),
                        player=q.name,
                        theirs=card_text(game, theirs),
                    ),
                    GIVE,
                )
    return found


def _held(game: GameState, holder: Any) -> Goods:
    if isinstance(holder, A.InDepot):
        p = game.player(holder.player)
        depot = (
            next((b for b in p.built if game.card_type(b.card).kind == "storage" and not b.covered), None)
            if p
            else None
        )
        return depot.stored if depot else Goods()
    if isinstance(holder, A.OnProbe):
        p = game.player(holder.player)
        b = p.built_card(holder.card) if p else None
        return b.stored if b else Goods()
    if isinstance(holder, A.AtNeutralPlanet):
        n = game.neutral_at(holder.field)
        return n.goods if n else Goods()
    return Goods()
