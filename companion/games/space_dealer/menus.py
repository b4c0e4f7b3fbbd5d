"""A Space Dealer phone's buttons: what a player does next, the usual choice first.

Buttons are *previews*: a button is offered when the engine would accept its move now (``apply``
on the current state, whose answer is thrown away). Nothing here decides a step; tapping a button
posts its move (or stores its job for a timer), which the referee then decides once.

At a table that plays with its box, the phone is also where the table tells the hub what it drew
(:data:`ENTRIES`): before the clock each player's pile of Mines, their Depot and their secret
start, and every neutral order turned up; during the game the card kept from a draw. Each such
group offers only what the pile can still hold, the likeliest first (most copies left), and the
page lets the player search it.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any

from companion.games.space_dealer import model as A
from companion.games.space_dealer.board import site_problem, timer_limit
from companion.games.space_dealer.dealing import mine_piles, personal
from companion.games.space_dealer.engine import apply
from companion.games.space_dealer.model import GameState, Goods, Phase, PlayerState, Ship, TimerStatus
from companion.games.space_dealer.words import (
    card_face_text,
    card_text,
    colour_text,
    job_text,
    order_text,
    ship_text,
    side_text,
    site_text,
    type_text,
)
from companion.rules.context import Context
from companion.rules.outcome import Rejected
from companion.rules.pages import MenuItem
from companion.rules.text import Text, text

if TYPE_CHECKING:
    from companion.games.space_dealer.referee import SpaceDealerReferee

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
    items: list[MenuItem] = [] if referee.hub_deck else _reveal_items(game, me)
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
    if not referee.hub_deck:
        items += _corrections(game, me)
    return items


def _start_items(referee: SpaceDealerReferee, game: GameState, me: PlayerState) -> list[MenuItem]:
    """Before the clock: at a table deck what the player was dealt (their Mines, their Depot) and the
    neutral orders turned up; then the secret start choice, Generator side and first Mine (rulebook 2)."""
    if referee.prepared is not None:
        return []
    items = [] if referee.hub_deck else [*_dealt_items(game, me), *_reveal_items(game, me)]
    mines = sorted({game.cards[c].colour for c in personal(me) if game.cards[c].type == "Mine"})
    if not mines:
        return items
    current = ("left" if me.plants[0] else "right", game.cards[me.built[0].card].colour if me.built else "")
    group = text("Start (secret until the clock starts): Generator and first Mine")
    items += [
        MenuItem(
            f"start:{side}:{colour}",
            text("Generator {side}, {colour} Mine", side=side_text(side), colour=colour_text(colour)),
            group,
            action=A.ChooseStart(side, colour),
            selected=(side, colour) == current,
        )
        for side in ("left", "right")
        for colour in mines
    ]
    if not referee.hub_deck:
        items += _corrections(game, me)
    return items


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

    if me.pending_draw is not None and me.pending_draw[1]:
        for card in me.pending_draw[1]:
            offer(A.KeepDrawnCard(card), text("keep {card}", card=card_text(game, card)), KEEP)
    elif me.pending_draw is not None:
        found[KEEP] = _kept_items(game, me, me.pending_draw[0])
    else:  # the draws first: the personal stack's cards would fold them away behind "more"
        for level in (2, 3):
            offer(A.DrawTechCards(level), text("draw 2 TechLevel {level} cards", level=level), PLAN)
    for card in me.stack:
        offer(A.PlayCard(card), text("plan {card}", card=card_text(game, card)), PLAN)
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


# --- what the table tells the hub (a table deck) ---------------------------------------------------


def _dealt_items(game: GameState, me: PlayerState) -> list[MenuItem]:
    """Before the clock: the pile of Mines and the Depot the player was dealt (rulebook 2)."""
    items: list[MenuItem] = []
    held = {c for q in game.players if q.name != me.name for c in personal(q)}
    group = text("My Mines: the pile I was dealt")
    for missing, mines in mine_piles(game):
        if held & set(mines) or any(i.id == f"mines:{missing}" for i in items):
            continue
        label = text(
            "{colours} Mines (no {colour})",
            colours=tuple(colour_text(game.cards[c].colour) for c in mines),
            colour=colour_text(missing),
        )
        items.append(
            MenuItem(
                f"mines:{missing}", label, group, action=A.TakeMines(missing), selected=me.mines == missing
            )
        )
    group = text("My Depot: the one I was dealt")
    mine = {c for c in personal(me) if game.cards[c].type == "Depot"}
    depots = [c for c in game.cards.values() if c.type == "Depot" and c.id not in held]
    items += _faces(game, [c.id for c in depots], group, A.TakeDepot, selected=mine, key="depot")
    return items


def _faces(
    game: GameState,
    cards: list[str],
    group: Text,
    move: Any,
    *,
    selected: set[str],
    key: str,
    label: Any = None,
    stack: A.TechStack | None = None,
) -> list[MenuItem]:
    """One button per card face among ``cards`` (copies that look the same are one button), the likeliest
    face first; the button names a copy of it. ``label`` words a face (its name and order).

    A face is as likely as the copies of it the pile holds: all of them, or, in a ``stack`` that holds
    fewer cards of a type than the copies it may hold (cards taken out of the box unseen for fewer
    players), each copy with the chance its type's count gives it (4 of 6 Solar Satellites: 4/6 each)."""
    words = label or (lambda card: card_face_text(game, card))
    by_face: dict[tuple[Any, ...], list[str]] = {}
    for card in cards:
        c = game.cards[card] if card in game.cards else None
        face = (c.type, c.colour, c.order) if c is not None else (card,)
        by_face.setdefault(face, []).append(card)

    def likelihood(copies: list[str]) -> float:
        if stack is None or copies[0] not in game.cards:
            return float(len(copies))
        kind = game.cards[copies[0]].type
        possible = sum(1 for c in stack.cards.items() if c in game.cards and game.cards[c].type == kind)
        return len(copies) * stack.types.count(kind) / max(1, possible)

    ranked = sorted(by_face.values(), key=lambda copies: (-likelihood(copies), str(words(copies[0]))))
    return [
        MenuItem(
            f"{key}:{copies[0]}",
            words(copies[0]),
            group,
            action=move(copies[0]),
            selected=bool(selected & set(copies)),
            search=True,
        )
        for copies in ranked
    ]


def _possible(game: GameState, level: int) -> list[str]:
    """The copies the TechLevel ``level`` stack can still hold, each as often as it may be drawn."""
    stack = game.stack(level)
    return [c for c in stack.cards.items() if game.cards[c].type in stack.types]


def _kept_items(game: GameState, me: PlayerState, level: int) -> list[MenuItem]:
    """A table deck's draw: the card the player keeps, from what the stack can still hold (3.2.1)."""
    group = text("Keep one drawn card: which did you keep?")
    keep = [
        i
        for i in _faces(
            game,
            _possible(game, level),
            group,
            A.KeepDrawnCard,
            selected=set(),
            key="keep",
            stack=game.stack(level),
        )
    ]
    return [i for i in keep if not isinstance(apply(game, A.Act(me.name, i.action)), Rejected)]


def _order_faces(game: GameState, orders: list[str], group: Text, move: Any, key: str) -> list[MenuItem]:
    spec = {o: game.order_cards[o] for o in orders}
    by_face: dict[Any, list[str]] = {}
    for o in orders:
        by_face.setdefault(spec[o], []).append(o)
    ranked = sorted(by_face.values(), key=lambda copies: (-len(copies), str(order_text(game, copies[0]))))
    return [
        MenuItem(
            f"{key}:{copies[0]}", order_text(game, copies[0]), group, action=move(copies[0]), search=True
        )
        for copies in ranked
    ]


def _reveal_items(game: GameState, me: PlayerState) -> list[MenuItem]:
    """The order turned up at each neutral planet waiting for one, from what the order stack can still
    hold (rulebook 5.3); any player may enter it."""
    items: list[MenuItem] = []
    for planet in game.neutral:
        if not planet.awaiting:
            continue
        group = text("Neutral planet at field {field}: the order turned up", field=planet.field)
        orders = [o for o in game.orders.items() if o not in planet.redrawn]
        items += _order_faces(
            game, orders, group, lambda o, f=planet.field: A.RevealOrder(f, o), f"reveal:{planet.field}"
        )
    return items


def _corrections(game: GameState, me: PlayerState) -> list[MenuItem]:
    """Entries the player made that can still be corrected: the card kept from the latest draw, while it
    lies untouched, and the neutral orders they turned up, while face up."""
    items: list[MenuItem] = []
    if me.kept is not None and me.kept in me.planning:
        level = game.card_type(me.kept).level
        group = text(
            "Correct: the card I kept is really",
        )
        face = {c for c in _possible(game, level) if card_face_text(game, c) == card_face_text(game, me.kept)}
        others = [c for c in _possible(game, level) if c not in face]
        for item in _faces(
            game,
            others,
            group,
            A.CorrectKeptCard,
            selected=set(),
            key="correct-kept",
            stack=game.stack(level),
        ):
            if not isinstance(apply(game, A.Act(me.name, item.action)), Rejected):
                items.append(item)
    for planet in game.neutral:
        if planet.order is None or planet.revealed_by != me.name:
            continue
        group = text("Correct: the order at field {field} is really", field=planet.field)
        spec = game.order_cards[planet.order]
        orders = [o for o in game.orders.items() if game.order_cards[o] != spec]
        items += _order_faces(
            game,
            orders,
            group,
            lambda o, f=planet.field: A.RevealOrder(f, o),
            f"correct-order:{planet.field}",
        )
    return items
