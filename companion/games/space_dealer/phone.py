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
from companion.games.space_dealer.record import ACTION_TYPES, action_to_json
from companion.games.space_dealer.state import GameState, Goods, Phase, PlayerState, TimerStatus
from companion.games.space_dealer.words import card_text, job_text, order_text, site_text
from companion.rules.outcome import Rejected
from companion.rules.pages import MenuItem

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
            "Jobs start by flipping a sandtimer, and time comes from the timers and the master clock",
            R_JOB,
        )
    if kind not in PHONE_TYPES:
        return Rejected(f"Unknown action {kind!r}: choose one of the buttons", R_JOB)
    raw = dict(action)
    actor = ACTOR.get(kind, "player")
    if raw.get(actor, player) != player:
        return Rejected("You can only act for yourself", R_JOB)
    raw[actor] = player
    if kind in TIMER_FIELDS:
        number = raw.get(TIMER_FIELDS[kind])
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            return Rejected("Name the timer by its number at the table: 1, 2 or 3", R_JOB)
        raw[TIMER_FIELDS[kind]] = number - 1
    return raw


# --- the buttons ---------------------------------------------------------------------------------


def menu(
    referee: SpaceDealerReferee, state: DealerTable, player: str, intents: dict[str, dict[str, Any]]
) -> list[MenuItem]:
    """The buttons of ``player``'s phone: the start choice before the clock, then jobs, build sites and free actions."""
    game = state.game
    me = game.player(player)
    if me is None or game.phase is Phase.OVER:
        return []
    if not state.started:
        return _start_items(referee, state, me)
    items: list[MenuItem] = []
    if game.phase is Phase.RUNNING:
        for t in range(len(me.timers)):
            node = state.node_of(player, t + 1)
            if node is not None and t < timer_limit(game, me):
                items += _job_items(game, me, t, node, intents.get(node))
    for t, timer in enumerate(me.timers):
        if timer.status is TimerStatus.USABLE and isinstance(timer.job, A.BuildCard):
            items += _place_items(game, me, t, timer.job.card)
    if game.phase is Phase.RUNNING:
        items += _free_items(referee, game, me)
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
    group = "Start (secret until the clock starts): Generator and first Mine"
    return [
        MenuItem(
            f"start:{side}:{colour}",
            f"Generator {side}, {colour} Mine",
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
    """The jobs timer ``t`` could take now (when it is running: once it has run out)."""
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
    group = f"Timer {t + 1}: next job"
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
    """Jobs worth listing for a timer of ``me``; only those the engine accepts become buttons."""
    jobs: list[A.Job] = [A.RaiseTechLevel()]
    low, high = game.data.x_range
    for card in me.planning:
        sites = (-2, 2) if game.card_type(card).layout == "plant" else range(low, high + 1)
        good = [x for x in sites if site_problem(game, me, card, x) is None]
        jobs += [A.BuildCard(card, x) for x in good[:8]]
    for b in me.built:
        t = game.card_type(b.card)
        if b.covered or not t.timer:
            continue
        if t.kind == "mine" and t.colour == "any" and b.blocked_by is None:
            jobs += [A.UseCard(b.card, colour=c) for c in game.data.colours]
        elif t.kind == "converter" and b.blocked_by is None:
            colours = game.data.colours
            jobs += [A.UseCard(b.card, exchanges=((g, k),)) for g in colours for k in colours if g != k]
        else:
            jobs.append(A.UseCard(b.card))
    for ship in game.ships:
        if ship.controller != me.name or ship.field is None:
            continue
        ring = game.ring_size
        targets = range(ring) if not ship.cargo else {(ship.field - 1) % ring, (ship.field + 1) % ring}
        jobs += [A.MoveShip(ship.id, f) for f in sorted(targets) if f != ship.field]
    jobs += [A.DiscardCard(card) for card in me.planning]  # the engine refuses them in the basic game
    return jobs


def _offer(game: GameState, items: list[MenuItem], action: Any, label: str, group: str) -> None:
    """Add a button for ``action`` if the engine would accept it now (a preview: nothing is decided)."""
    if isinstance(apply(game, action), Rejected):
        return
    raw = to_phone(action)
    key = ":".join(str(v) for v in raw.values() if not isinstance(v, (list, dict)))
    extra = ":".join(f"{k}={v}" for k, v in raw.items() if isinstance(v, dict))
    items.append(MenuItem(f"{key}{':' + extra if extra else ''}", label, group, action=raw))


def _place_items(game: GameState, me: PlayerState, t: int, card: str) -> list[MenuItem]:
    items: list[MenuItem] = []
    group = f"Timer {t + 1}: place {card_text(game, card)}"
    low, high = game.data.x_range
    sites = (-2, 2) if game.card_type(card).layout == "plant" else range(low, high + 1)
    for x in sites:
        _offer(game, items, A.PlaceBuiltCard(me.name, t, x), f"build {site_text(game, card, x)}", group)
    _offer(game, items, A.AbandonJob(me.name, t), "give the build up", group)
    return items


def _free_items(referee: SpaceDealerReferee, game: GameState, me: PlayerState) -> list[MenuItem]:
    items: list[MenuItem] = []
    name = me.name

    def offer(action: Any, label: str, group: str) -> None:
        _offer(game, items, action, label, group)

    for card in me.stack:
        offer(A.PlayCard(name, card), f"plan {card_text(game, card)}", "Plan a card")
    if me.pending_draw is not None:
        for card in me.pending_draw[1]:
            offer(A.KeepDrawnCard(name, card), f"keep {card_text(game, card)}", "Keep one drawn card")
    else:
        for level in (2, 3):
            offer(A.DrawTechCards(name, level), f"draw 2 TechLevel {level} cards", "Plan a card")
    ships = [s for s in game.ships if s.controller == name and s.field is not None]
    for ship in ships:
        mine = A.InShip(ship.id)
        here = ship.field
        label = "ship" if ship.id == name else f"{ship.id} ship"
        owner = game.field_owner(here)  # type: ignore[arg-type]
        targets: list[tuple[Any, str]] = []
        if owner == name:
            targets.append((A.InDepot(name), "Depot"))
            targets += [
                (A.OnProbe(name, b.card), "Transport Probe")
                for b in me.built
                if game.card_type(b.card).kind == "transport" and not b.covered
            ]
        neutral = game.neutral_at(here)  # type: ignore[arg-type]
        targets += referee.neutral_places(game, here)  # type: ignore[arg-type]
        targets += [
            (A.InShip(s.id), f"{s.controller or s.id}'s ship")
            for s in game.ships
            if s.field == here and s.id != ship.id
        ]
        for colour, _ in ship.cargo.items:
            one = Goods.of({colour: 1})
            for target, where in targets:
                offer(
                    A.TransferGoods(name, mine, target, one),
                    f"{label} \u2192 {where}: 1 {colour}",
                    "Goods",
                )
            offer(A.ReturnGoods(name, mine, one), f"{label}: return 1 {colour} to the pool", "Goods")
        if ship.cargo and targets:
            offer(
                A.TransferGoods(name, mine, targets[0][0], ship.cargo),
                f"{label} \u2192 {targets[0][1]}: all",
                "Goods",
            )
        for source, where in targets:
            if isinstance(source, A.InShip):
                continue
            held = _held(game, source)
            for colour, _ in held.items:
                offer(
                    A.TransferGoods(name, source, mine, Goods.of({colour: 1})),
                    f"{where} \u2192 {label}: 1 {colour}",
                    "Goods",
                )
        if owner is not None and owner != name:
            for b in game.player(owner).built:  # type: ignore[union-attr]
                if game.cards[b.card].order is not None:
                    offer(
                        A.SatisfyOrder(name, ship.id, b.card),
                        f"deliver {order_text(game, b.card)} ({owner}'s {card_text(game, b.card)})",
                        "Orders",
                    )
        if neutral is not None and neutral.order is not None:
            offer(
                A.SatisfyOrder(name, ship.id, neutral.order),
                f"deliver {order_text(game, neutral.order)} (neutral order)",
                "Orders",
            )
    others = [q for q in game.players if q.name != name]
    for q in others:
        for t, timer in enumerate(q.timers):
            if timer.status is TimerStatus.ACTIVE:
                offer(
                    A.Sabotage(name, q.name, t),
                    f"sabotage {q.name}'s timer {t + 1} ({job_text(game, timer.job)})",
                    "Attack",
                )
        for b in q.built:
            if game.card_type(b.card).timer and not b.covered:
                offer(
                    A.LaunchRocket(name, q.name, b.card),
                    f"rocket on {q.name}'s {card_text(game, b.card)}",
                    "Attack",
                )
    for card in me.planning:
        for q in others:
            offer(
                A.GiveCard(name, q.name, card),
                f"give {card_text(game, card)} to {q.name}",
                "Give or trade cards (by agreement)",
            )
            for theirs in q.planning:
                offer(
                    A.TradeCards(name, card, q.name, theirs),
                    f"trade {card_text(game, card)} for {q.name}'s {card_text(game, theirs)}",
                    "Give or trade cards (by agreement)",
                )
    return items


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
