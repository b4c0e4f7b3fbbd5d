"""The phone menus of Time 'n' Space (introductory and full game): what a player can tap.

A tap on an *intent* item stores a choice for one sandtimer's next flip (see
:mod:`.table` for the intent's keys); a tap on an *action* item sends a phone action
the referee decides at once (``lift``, ``lift-together``, ``finish``, ``handover``,
``starting-orders``). What a button would do is previewed here, on copies of the
state; the referee's decision applies each action once when it is tapped.

Order: what a player does next comes first. Finished sandtimers (waiting to be lifted)
come before idle and running ones; for each, the choices of its pending lift, the usual
one first (preselected), then its next time symbol, the preselected one first. Long
lists of toggles (cubes to beam, counters to place, orders to fulfil) come last within
their group, after the short alternatives (nothing, upgrade, forfeit). Item ids do not
depend on the order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import permutations
from typing import Any

from companion.games.time_n_space import actions as A
from companion.games.time_n_space.choices import (
    Handover,
    default_beam,
    default_build,
    default_deliver,
    default_moon,
    handover_pick,
    lift_choice,
    order_spaces,
    pairs,
    placement,
    running,
    starting_selection,
    together,
    trade_selection,
    waiting_ships,
)
from companion.games.time_n_space.engine import apply, legal_placements
from companion.games.time_n_space.scoring import COLORS
from companion.games.time_n_space.state import (
    PHASE_ENDING,
    PHASE_OVER,
    PHASE_RUNNING,
    PHASE_SETUP,
    RESEARCH,
    SHIP,
    Cube,
    GameState,
    PlayerState,
)
from companion.games.time_n_space.views import choice_text
from companion.games.time_n_space.words import (
    BUILDING_WORDS,
    building_label,
    color_word,
    counter_text,
    symbol_label,
    symbol_option,
)
from companion.rules.outcome import Rejected
from companion.rules.pages import MenuItem
from companion.rules.setup import Seat
from companion.rules.text import Text, text


def phone_menu(
    seats: Sequence[Seat],
    game: GameState,
    handover: Handover,
    player: str,
    intents: dict[str, dict[str, Any]],
) -> list[MenuItem]:
    """Everything ``player`` can tap now; ``intents``: the choices stored per node of theirs."""
    me = game.player(player)
    if me is None:
        return []
    items: list[MenuItem] = []
    mine = sorted((s for s in seats if s.player == player), key=lambda s: s.index)
    if game.phase == PHASE_ENDING and any(
        tm.symbol is not None and not tm.running for p in game.players for tm in p.timers
    ):
        items.append(
            MenuItem(
                "finish",
                text("Lift every finished sandtimer now (default actions)"),
                text("End of the game"),
                action={"type": "finish"},
            )
        )
    if game.variant == "full" and game.phase == PHASE_SETUP and not me.ready and mine:
        node = mine[0].node
        items += _starting_menu(me, node, intents.get(node, {}))
    for seat in sorted(mine, key=lambda s: (_urgency(me, s), s.index)):
        if seat.index - 1 < len(me.timers):
            items += _timer_menu(game, handover, me, seat, intents.get(seat.node, {}))
    items += _together_menu(game, handover, me)
    items += _handover_menu(game, handover, me)
    return items


def _urgency(me: PlayerState, seat: Seat) -> int:
    """0: the sand ran through and the timer waits to be lifted; 1: idle in front of the player; 2: running."""
    if seat.index - 1 >= len(me.timers):
        return 3
    timer = me.timers[seat.index - 1]
    if timer.symbol is None:
        return 1
    return 2 if timer.running else 0


def _then(steps: Sequence[Text | str]) -> Text | str:
    """Steps in order: "a, then b, then c"."""
    out: Text | str = steps[0]
    for step in steps[1:]:
        out = text("{earlier}, then {later}", earlier=out, later=step)
    return out


def _together_menu(game: GameState, handover: Handover, me: PlayerState) -> list[MenuItem]:
    """Ships of two or more players wait at my planet: I decide who fulfils first ("1. Your spaceship")."""
    if game.phase not in (PHASE_RUNNING, PHASE_ENDING):
        return []
    ships = waiting_ships(game, me)
    if len(ships) < 2:
        return []
    items = []
    for order in permutations(ships):
        grouped = together(game, me.name, order, handover)
        names = [name for name, _ in order]
        doing = _then(
            [
                text("{player} first ({doing})", player=lift.player, doing=_ship_text(lift.choice))
                if k == 0
                else text("{player} ({doing})", player=lift.player, doing=_ship_text(lift.choice))
                for k, lift in enumerate(grouped.lifts)
            ]
        )
        items.append(
            MenuItem(
                "together-" + "-".join(names),
                text("Lift the ships of {players} together: {order}", players=tuple(names), order=doing),
                text("My planet: ships arriving together"),
                action={
                    "type": "lift-together",
                    "lifts": [{"player": name, "timer": t + 1} for name, t in order],
                },
            )
        )
    return items


def _ship_text(choice: A.Choice | None) -> Text:
    return text("fulfil nothing") if choice is None else choice_text(choice)


def _handover_menu(game: GameState, handover: Handover, me: PlayerState) -> list[MenuItem]:
    """For identical orders on my control center: which one I hand over first."""
    if game.phase in (PHASE_ENDING, PHASE_OVER):
        return []
    spots: dict[tuple[str, int], list[tuple[str, int]]] = {}
    for bid, i, order in me.placed_orders():
        spots.setdefault((order.color, order.value), []).append((bid, i))
    items = []
    for (color, value), where in spots.items():
        if len(where) < 2:
            continue
        current = handover_pick(handover, me, color, value) or where[0]
        for bid, i in where:
            b = me.building(bid)
            assert b is not None
            items.append(
                MenuItem(
                    f"handover-{color}-{value}-{bid}-{i}",
                    text(
                        "{counter} from {building} spot {spot}",
                        counter=counter_text(color, value),
                        building=building_label(b),
                        spot=i + 1,
                    ),
                    text("My planet: which {counter} I hand over first", counter=counter_text(color, value)),
                    action={
                        "type": "handover",
                        "color": color,
                        "value": value,
                        "building": bid,
                        "spot": i,
                    },
                    selected=(bid, i) == current,
                )
            )
    return items


def _first_selected(items: Sequence[MenuItem], rest: Sequence[MenuItem] = ()) -> list[MenuItem]:
    """The selected items first (the usual choice, preselected), then the other ``items``, then the
    other ``rest`` (a long list of toggles): the order a phone shows them in."""
    both = [*items, *rest]
    return (
        [i for i in both if i.selected]
        + [i for i in items if not i.selected]
        + [i for i in rest if not i.selected]
    )


def _timer_menu(
    game: GameState, handover: Handover, me: PlayerState, seat: Seat, intent: dict[str, Any]
) -> list[MenuItem]:
    t, node, n = seat.index - 1, seat.node, seat.index
    timer = me.timers[t]
    items: list[MenuItem] = []
    pre = f"t{n}"
    lift_now: list[MenuItem] = []
    if timer.symbol is not None:
        here = symbol_label(game, me, timer.symbol, timer.destination)
        group = text("Timer {index}: when lifted from {symbol}", index=n, symbol=here)
        items += _choice_menu(game, me, t, node, intent, group, pre, n)
        if not timer.running:
            action = {
                "type": "lift",
                "timer": n,
                "intent": {k: v for k, v in intent.items() if k != "node"},
            }
            doing = choice_text(lift_choice(game, me.name, t, intent, handover))
            lift_now.append(
                MenuItem(
                    f"{pre}-lift",
                    text("Lift now ({doing}) and set it aside", doing=doing),
                    text("Timer {index}: now", index=n),
                    action=action,
                )
            )
    if game.phase in (PHASE_ENDING, PHASE_OVER):
        return items + lift_now
    after = running(game)
    if timer.symbol is not None:
        after = running(_lifted(after, me.name, t, intent, ran_through=not timer.running))
    legal = legal_placements(after, me.name, t)
    chosen = placement(after, me.name, t, intent, previous=timer.symbol) if legal else None
    mover = after.player(me.name)
    assert mover is not None
    group = text("Timer {index}: next symbol", index=n)
    nexts: list[MenuItem] = []
    if not legal:
        nexts.append(MenuItem(f"{pre}-next-none", text("No free time symbol for this sandtimer"), group))
    for option in legal:
        key = f"{option.symbol}-{option.destination}" if option.destination else f"{option.symbol}"
        nexts.append(
            MenuItem(
                f"{pre}-next-{key}",
                symbol_option(after, mover, option.symbol, option.destination),
                group,
                intent=_merge(intent, node, symbol=option.symbol, destination=option.destination),
                selected=option == chosen,
            )
        )
    return items + _first_selected(nexts) + lift_now


def _lifted(game: GameState, name: str, t: int, intent: dict[str, Any], *, ran_through: bool) -> GameState:
    """A preview: the state after this sandtimer ran through and was lifted as the intent says
    (forfeiting when that is not legal), to list where it can go next."""
    if not ran_through:
        game = _after(game, A.SandRanOut(name, t))
    result = apply(game, A.LiftTimer(name, t, lift_choice(game, name, t, intent)))
    if isinstance(result, Rejected):
        return _after(game, A.LiftTimer(name, t, None))
    return result.state


def _choice_menu(
    game: GameState,
    me: PlayerState,
    t: int,
    node: str,
    intent: dict[str, Any],
    group: Text,
    pre: str,
    n: int,
) -> list[MenuItem]:
    """The choices of the pending lift: the usual (preselected) one first, long toggle lists last."""
    timer = me.timers[t]
    symbol = timer.symbol
    forfeit = bool(intent.get("forfeit"))
    items: list[MenuItem] = []
    toggles: list[MenuItem] = []

    def forfeit_item() -> MenuItem:
        return MenuItem(
            f"{pre}-forfeit",
            text("Forfeit the action"),
            group,
            intent=_merge(intent, node, forfeit=True, upgrade=False),
            selected=forfeit,
        )

    if symbol == SHIP:
        here = timer.destination or me.ship
        owner = game.owner_of(here)
        if owner is None and game.variant == "intro" or owner is not None and owner.name == me.name:
            nothing = (
                text("Nothing to do at your own planet")
                if owner is not None
                else text("Nothing to do at a moon in the introductory game")
            )
            return [MenuItem(f"{pre}-nothing", nothing, group)]
        if owner is not None:
            wanted = pairs(intent["deliver"]) if "deliver" in intent else default_deliver(game, me, owner)
            have = Counter(wanted)
            seen: Counter[tuple[str, int]] = Counter()
            for bid, i, order in owner.placed_orders():
                key = (order.color, order.value)
                seen[key] += 1
                k = seen[key]
                on = have[key] >= k and not forfeit
                count = dict(have)
                count[key] = k - 1 if on else k
                delivered = [list(x) for x in wanted if x != key] + [list(key)] * count[key]
                toggles.append(
                    MenuItem(
                        f"{pre}-deliver-{bid}-{i}",
                        text(
                            "Fulfil {player}'s {counter} ({building})",
                            player=owner.name,
                            counter=counter_text(order.color, order.value),
                            building=bid,
                        ),
                        group,
                        intent=_merge(intent, node, deliver=delivered, forfeit=False),
                        selected=on,
                    )
                )
            items.append(
                MenuItem(
                    f"{pre}-deliver-none",
                    text("Fulfil nothing"),
                    group,
                    intent=_merge(intent, node, deliver=[], forfeit=False),
                    selected=not forfeit and not wanted,
                )
            )
            return _first_selected(items, rest=toggles)
        pile = game.pile(here)
        mode = intent.get("moon")
        if mode not in ("research", "bottom", "skip"):
            mode = default_moon(game, me, here)
        mode = "skip" if forfeit else mode
        top = pile[0].stage2 if pile else None
        top_label: Text = (
            text("{kind} {stage}", kind=BUILDING_WORDS[top.type], stage="II")
            if top is not None
            else text("no tile")
        )
        options = [
            ("research", text("Take the top tile ({tile}) into the research plant", tile=top_label)),
            ("bottom", text("Put the top tile under the pile")),
            ("skip", text("Skip: one or no tile is left")),
        ]
        allowed = {
            "research": bool(pile) and me.research is None,
            "bottom": bool(pile),
            "skip": len(pile) <= 1,
        }
        for choice, label in options:
            if not allowed[choice] and mode != choice:
                continue
            items.append(
                MenuItem(
                    f"{pre}-moon-{choice}",
                    label,
                    group,
                    intent=_merge(intent, node, moon=choice, forfeit=False),
                    selected=mode == choice,
                )
            )
        return _first_selected(items)
    if symbol == RESEARCH:
        target = intent.get("build") or default_build(me)
        for under in me.buildings:
            if under.stage == 1 and under.is_unoccupied() and all(tm.symbol != under.id for tm in me.timers):
                toggles.append(
                    MenuItem(
                        f"{pre}-build-{under.id}",
                        text("Build onto {building}", building=building_label(under)),
                        group,
                        intent=_merge(intent, node, build=under.id, forfeit=False),
                        selected=not forfeit and target == under.id,
                    )
                )
        return _first_selected([forfeit_item()], rest=toggles)
    b = me.building(symbol) if symbol else None
    if b is None:
        return items
    upgrade = bool(intent.get("upgrade")) and not forfeit
    doing = not forfeit and not upgrade
    if b.type == "production":
        items.append(
            MenuItem(
                f"{pre}-produce",
                text("Produce into every free spot"),
                group,
                intent=_merge(intent, node, forfeit=False, upgrade=False),
                selected=doing,
            )
        )
    elif b.type == "beam":
        cubes = pairs(intent["beam"]) if "beam" in intent else default_beam(game, me, b)
        room = len(b.free_spots())
        for source in me.buildings:
            if source.type != "production":
                continue
            for i, c in enumerate(source.contents):
                if not isinstance(c, Cube):
                    continue
                on = (source.id, i) in cubes
                added = cubes + [(source.id, i)]
                beamed = [x for x in cubes if x != (source.id, i)] if on else added[len(added) - room :]
                toggles.append(
                    MenuItem(
                        f"{pre}-beam-{source.id}-{i}",
                        text(
                            "Beam {color} from {building} spot {spot}",
                            color=color_word(c.color),
                            building=source.id,
                            spot=i + 1,
                        ),
                        group,
                        intent=_merge(
                            intent, node, beam=[list(x) for x in beamed], forfeit=False, upgrade=False
                        ),
                        selected=doing and on,
                    )
                )
        items.append(
            MenuItem(
                f"{pre}-beam-none",
                text("Beam nothing"),
                group,
                intent=_merge(intent, node, beam=[], forfeit=False, upgrade=False),
                selected=doing and not cubes,
            )
        )
    else:
        counters, spaces = trade_selection(me, b, intent)
        have = Counter(counters)
        cap = b.spec.capacity
        base = counters if "trade" in intent else []  # the first tap starts a selection of one's own
        for key in sorted(
            set((o.color, o.value) for o in me.above), key=lambda k: (COLORS.index(k[0]), k[1])
        ):
            left = sum(1 for o in me.above if (o.color, o.value) == key)
            traded = (base + [key])[-cap:] if cap else base
            toggles.append(
                MenuItem(
                    f"{pre}-trade-{key[0]}-{key[1]}",
                    text(
                        "Place {counter} ({chosen} of {left} chosen)",
                        counter=counter_text(*key),
                        chosen=have[key],
                        left=left,
                    ),
                    group,
                    intent=_merge(
                        intent, node, trade=[list(x) for x in traded], forfeit=False, upgrade=False
                    ),
                    selected=doing and have[key] > 0,
                )
            )
        items.append(
            MenuItem(
                f"{pre}-trade-none",
                text("Place no orders"),
                group,
                intent=_merge(intent, node, trade=[], forfeit=False, upgrade=False),
                selected=doing and not counters,
            )
        )
    if b.stage == 2:
        items.append(
            MenuItem(
                f"{pre}-upgrade",
                text("Upgrade to stage III instead (unoccupied only)"),
                group,
                intent=_merge(intent, node, upgrade=True, forfeit=False),
                selected=upgrade,
            )
        )
    items.append(forfeit_item())
    out = _first_selected(items, rest=toggles)
    if b.type == "trading":
        out += _space_menu(me, b, node, intent, pre, n, doing=doing)
    return out


def _space_menu(
    me: PlayerState, b: Any, node: str, intent: dict[str, Any], pre: str, n: int, *, doing: bool
) -> list[MenuItem]:
    """Where a trading center's new orders go: the free order spaces, the chosen ones first."""
    _, spaces = trade_selection(me, b, intent)
    chosen_spaces = [s for s in pairs(intent.get("spaces")) if s in order_spaces(me)]
    space_group = text("Timer {index}: order spaces for the new orders", index=n)
    items = []
    for bid, i in order_spaces(me):
        on = (bid, i) in spaces
        new_spaces = [x for x in chosen_spaces if x != (bid, i)] if on else chosen_spaces + [(bid, i)]
        target = me.building(bid)
        assert target is not None
        items.append(
            MenuItem(
                f"{pre}-space-{bid}-{i}",
                text("{building} spot {spot}", building=building_label(target), spot=i + 1),
                space_group,
                intent=_merge(intent, node, spaces=[list(x) for x in new_spaces]),
                selected=doing and on,
            )
        )
    return _first_selected(items)


def _starting_menu(me: PlayerState, node: str, intent: dict[str, Any]) -> list[MenuItem]:
    counters, spaces = starting_selection(me, intent)
    have = Counter(counters)
    chosen_spaces = [s for s in pairs(intent.get("start_spaces")) if s in order_spaces(me)]
    orders = [
        {"color": c, "value": v, "building": s[0], "spot": s[1]}
        for (c, v), s in zip(counters, spaces, strict=False)
    ]
    label = text(
        "Place {orders}",
        orders=tuple(
            text(
                "{counter} on {building} spot {spot}",
                counter=counter_text(o["color"], o["value"]),
                building=o["building"],
                spot=o["spot"] + 1,
            )
            for o in orders
        ),
    )
    items = [
        MenuItem(
            "start-place",
            label,
            text("Starting orders"),
            action={"type": "starting-orders", "orders": orders},
        )
    ]
    group = text("Starting orders: pick 2 counters")
    picks = []
    for key in sorted(set((o.color, o.value) for o in me.above), key=lambda k: (COLORS.index(k[0]), k[1])):
        new = (counters + [key])[-2:]
        picks.append(
            MenuItem(
                f"start-pick-{key[0]}-{key[1]}",
                counter_text(*key),
                group,
                intent=_merge(intent, node, start_orders=[list(x) for x in new]),
                selected=have[key] > 0,
            )
        )
    items += _first_selected(picks)
    group = text("Starting orders: pick 2 order spaces")
    places = []
    for bid, i in order_spaces(me):
        on = (bid, i) in spaces
        new_spaces = [x for x in chosen_spaces if x != (bid, i)] if on else (chosen_spaces + [(bid, i)])[-2:]
        b = me.building(bid)
        assert b is not None
        places.append(
            MenuItem(
                f"start-space-{bid}-{i}",
                text("{building} spot {spot}", building=building_label(b), spot=i + 1),
                group,
                intent=_merge(intent, node, start_spaces=[list(x) for x in new_spaces]),
                selected=on,
            )
        )
    return items + _first_selected(places)


def _merge(intent: dict[str, Any], node: str, **changes: Any) -> dict[str, Any]:
    out = {k: v for k, v in intent.items() if k != "node"}
    out.update(changes)
    out["node"] = node
    return out


def _after(game: GameState, action: Any) -> GameState:
    """A preview: the state after ``action``, or the same state when it is not legal."""
    result = apply(game, action)
    return game if isinstance(result, Rejected) else result.state
