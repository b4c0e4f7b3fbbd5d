"""A Space Dealer phone: the buttons a player sees, and the JSON of what a phone posts.

Buttons are *previews*: a button is offered when the engine would accept its action now
(``apply`` on the current state, whose answer is thrown away). Nothing here decides a
step; tapping a button posts its action, which the referee then decides once.

A phone posts an engine action in the JSON of :mod:`.record` without the acting player
(the referee fills it in) and with table timer numbers (1, 2, 3; the engine counts from 0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.games.space_dealer import actions as A
from companion.games.space_dealer.engine import R_JOB, apply, site_problem, timer_limit
from companion.games.space_dealer.names import colour_text, side_text, type_text
from companion.games.space_dealer.record import ACTION_TYPES, action_to_json
from companion.games.space_dealer.state import GameState, Goods, Phase, PlayerState, Ship, TimerStatus
from companion.games.space_dealer.words import card_text, job_text, order_text, ship_text, site_text
from companion.rules.outcome import Rejected
from companion.rules.pages import MenuItem
from companion.rules.text import Text, text

if TYPE_CHECKING:
    from companion.games.space_dealer.table import DealerTable, SpaceDealerReferee

TIME_TYPES = ("StartJob", "TimerRanOut", "MasterClockExpired")
"""Engine actions no phone posts: jobs start with a flip, time facts come from the timers and the clock."""
PHONE_TYPES = tuple(t for t in ACTION_TYPES if t not in TIME_TYPES)
"""Engine actions a phone may post."""
ACTOR = {"Sabotage": "attacker", "LaunchRocket": "attacker"}
"""The field naming the acting player, where it is not ``player``."""
TIMER_FIELDS = {"Sabotage": "target_timer", "PlaceBuiltCard": "timer", "AbandonJob": "timer"}
"""Fields holding a timer number: 1-based on phones, 0-based in the engine and the log."""


# --- the JSON a phone posts ----------------------------------------------------------------------


def to_phone(action: Any) -> dict[str, Any]:
    """An engine action as a phone posts it: no acting player, table timer numbers."""
    raw = action_to_json(action)
    kind = raw["type"]
    raw.pop(ACTOR.get(kind, "player"), None)
    if kind in TIMER_FIELDS:
        raw[TIMER_FIELDS[kind]] += 1
    return raw


def from_phone(player: str, action: dict[str, Any]) -> dict[str, Any] | Rejected:
    """The engine JSON of a free action ``player``'s phone posted, or why a phone cannot post it."""
    kind = action.get("type")
    if kind in TIME_TYPES:
        return Rejected(
            text("Jobs start by flipping a sandtimer, and time comes from the timers and the master clock"),
            R_JOB,
        )
    if kind not in PHONE_TYPES:
        return Rejected(text("Unknown action {action}: choose one of the buttons", action=str(kind)), R_JOB)
    raw = dict(action)
    actor = ACTOR.get(kind, "player")
    if raw.get(actor, player) != player:
        return Rejected(text("You can only act for yourself"), R_JOB)
    raw[actor] = player
    if kind in TIMER_FIELDS:
        number = raw.get(TIMER_FIELDS[kind])
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            return Rejected(text("Name the timer by its number at the table: 1, 2 or 3"), R_JOB)
        raw[TIMER_FIELDS[kind]] = number - 1
    return raw


# --- the buttons ---------------------------------------------------------------------------------


def menu(
    referee: SpaceDealerReferee, state: DealerTable, player: str, intents: dict[str, dict[str, Any]]
) -> list[MenuItem]:
    """The buttons of ``player``'s phone, what the player does next first.

    Before the clock: the secret start choice. Then a finished build waiting for its site, a drawn
    card to keep, orders the ship can deliver now (points), each timer's next job (the usual jobs
    first: use a card, build each planned card, fly, raise the tech level; then the other sites and
    discards), and the other free actions: plan a card, goods, attacks, giving and trading.
    """
    game = state.game
    me = game.player(player)
    if me is None or game.phase is Phase.OVER:
        return []
    if not state.started:
        return _start_items(referee, state, me)
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
        node = state.node_of(player, t + 1)
        if node is not None and t < timer_limit(game, me):
            items += _job_items(game, me, t, node, intents.get(node))
    for group in (PLAN, GOODS, ATTACK, GIVE):
        items += free.get(group, [])
    return items


def _start_items(referee: SpaceDealerReferee, state: DealerTable, me: PlayerState) -> list[MenuItem]:
    """Before the clock: the secret start choice, Generator side and first Mine (rulebook 2)."""
    if referee.prepared is not None:
        return []
    game = state.game
    chosen = next(((sd, m) for p, sd, m in state.starts if p == me.name), None)
    first = game.cards[me.built[0].card].colour if me.built else ""
    current = chosen or ("left", first)
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
            action={"type": "start_choice", "side": side, "mine": colour},
            selected=(side, colour) == current,
        )
        for side in ("left", "right")
        for colour in colours
    ]


def _job_items(
    game: GameState, me: PlayerState, t: int, node: str, intent: dict[str, Any] | None
) -> list[MenuItem]:
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
    chosen = (intent or {}).get("job")
    group = text("Timer {number}: next job", number=t + 1)
    items: list[MenuItem] = []
    for job in _candidate_jobs(base, me):
        if isinstance(apply(base, A.StartJob(me.name, t, job)), Rejected):
            continue
        raw = action_to_json(job)
        key = ":".join(str(v) for v in raw.values() if not isinstance(v, (list, dict)))
        items.append(
            MenuItem(
                f"t{t + 1}:{key}",
                job_text(base, job),
                group,
                intent={"node": node, "job": raw},
                selected=raw == chosen,
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


def _offer(game: GameState, items: list[MenuItem], action: Any, label: Text, group: Text) -> None:
    """Add a button for ``action`` if the engine would accept it now (a preview: nothing is decided)."""
    if isinstance(apply(game, action), Rejected):
        return
    raw = to_phone(action)
    key = ":".join(str(v) for v in raw.values() if not isinstance(v, (list, dict)))
    extra = ":".join(f"{k}={v}" for k, v in raw.items() if isinstance(v, dict))
    items.append(MenuItem(f"{key}{':' + extra if extra else ''}", label, group, action=raw))


def _place_items(game: GameState, me: PlayerState, t: int, card: str) -> list[MenuItem]:
    items: list[MenuItem] = []
    group = text("Timer {number}: place {card}", number=t + 1, card=card_text(game, card))
    low, high = game.data.x_range
    sites = (-2, 2) if game.card_type(card).layout == "plant" else range(low, high + 1)
    for x in sites:
        site = site_text(game, card, x)
        _offer(game, items, A.PlaceBuiltCard(me.name, t, x), text("build {site}", site=site), group)
    _offer(game, items, A.AbandonJob(me.name, t), text("give the build up"), group)
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

    def offer(action: Any, label: Text, kind: str) -> None:
        _offer(game, found.setdefault(kind, []), action, label, groups[kind])

    for card in me.stack:
        offer(A.PlayCard(name, card), text("plan {card}", card=card_text(game, card)), PLAN)
    if me.pending_draw is not None:
        for card in me.pending_draw[1]:
            offer(A.KeepDrawnCard(name, card), text("keep {card}", card=card_text(game, card)), KEEP)
    else:
        for level in (2, 3):
            offer(A.DrawTechCards(name, level), text("draw 2 TechLevel {level} cards", level=level), PLAN)
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
                A.TransferGoods(name, mine, targets[0][0], ship.cargo),
                text("{source} \u2192 {target}: all", source=label, target=targets[0][1]),
                GOODS,
            )
        for colour, _ in ship.cargo.items:
            one = Goods.of({colour: 1})
            for target, where in targets:
                offer(
                    A.TransferGoods(name, mine, target, one),
                    text(
                        "{source} \u2192 {target}: 1 {colour}",
                        source=label,
                        target=where,
                        colour=colour_text(colour),
                    ),
                    GOODS,
                )
            offer(
                A.ReturnGoods(name, mine, one),
                text("{source}: return 1 {colour} to the pool", source=label, colour=colour_text(colour)),
                GOODS,
            )
        for source, where in targets:
            if isinstance(source, A.InShip):
                continue
            held = _held(game, source)
            for colour, _ in held.items:
                offer(
                    A.TransferGoods(name, source, mine, Goods.of({colour: 1})),
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
                        A.SatisfyOrder(name, ship.id, b.card),
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
                A.SatisfyOrder(name, ship.id, neutral.order),
                text("deliver {order} (neutral order)", order=order_text(game, neutral.order)),
                ORDERS,
            )
    others = [q for q in game.players if q.name != name]
    for q in others:
        for t, timer in enumerate(q.timers):
            if timer.status is TimerStatus.ACTIVE:
                offer(
                    A.Sabotage(name, q.name, t),
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
                    A.LaunchRocket(name, q.name, b.card),
                    text("rocket on {player}'s {card}", player=q.name, card=card_text(game, b.card)),
                    ATTACK,
                )
    for card in me.planning:
        for q in others:
            offer(
                A.GiveCard(name, q.name, card),
                text("give {card} to {player}", card=card_text(game, card), player=q.name),
                GIVE,
            )
            for theirs in q.planning:
                offer(
                    A.TradeCards(name, card, q.name, theirs),
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
