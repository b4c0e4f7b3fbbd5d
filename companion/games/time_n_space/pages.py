"""What the pages show of Time 'n' Space (introductory and full game): the dashboard, the phone pages and their buttons.

Pure functions of the engine state; the referee of :mod:`.referee` answers ``view``,
``player_view`` and ``menu`` with them. Every word is a
:class:`~companion.rules.text.Text` (see :mod:`.words`); the dashboard's picture of the
board is built by :mod:`.picture`.

The phone's menu. A tap on an *intent* item stores a :class:`~.model.Intent` for one
sandtimer's next flip (the whole intent, with one choice changed); a tap on an *action*
item sends a move the referee decides at once (:class:`~.model.Lift`,
:class:`~.model.LiftShipsTogether`, :class:`~.model.LiftEveryFinished`,
:class:`~.model.HandOverFirst`, :class:`~.model.StartingOrders`). What a button would do is
previewed here, on copies of the state; the referee's decision applies each action once
when it is tapped.

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
from dataclasses import replace
from itertools import permutations
from typing import Any

from companion.games.time_n_space import model as M
from companion.games.time_n_space.choices import (
    NO_CHOICE,
    default_beam,
    default_build,
    default_deliver,
    default_moon,
    lift_choice,
    moon_tile,
    order_spaces,
    placement,
    running,
    starting_selection,
    tile_kinds,
    together,
    trade_selection,
    waiting_ships,
)
from companion.games.time_n_space.components import COLORS, Tile
from companion.games.time_n_space.engine import apply, legal_placements, orders_back_above
from companion.games.time_n_space.model import (
    PHASE_ENDING,
    PHASE_OVER,
    PHASE_RUNNING,
    PHASE_SETUP,
    RESEARCH,
    SHIP,
    Building,
    Cube,
    GameState,
    Intent,
    Order,
    PlayerState,
    Timer,
)
from companion.games.time_n_space.picture import board_picture
from companion.games.time_n_space.words import (
    BUILDING_WORDS,
    COLOR_WORDS,
    NONE,
    PHASE_WORDS,
    ROMAN,
    VARIANT_WORDS,
    building_label,
    choice_text,
    color_word,
    counter_text,
    counters_text,
    place_word,
    symbol_label,
    symbol_option,
    tile_words,
)
from companion.rules.outcome import Rejected
from companion.rules.pages import MenuItem, View
from companion.rules.setup import Seat
from companion.rules.text import Text, joined, text

LONG_GROUP = 6
"""More kinds of tile than this, and the phone lets the player search the buttons."""

# --- the dashboard and the phone pages ----------------------------------------------------------


def _contents(b: Building) -> Text:
    if b.type == "trading":
        return text("places {count} order", "places {count} orders", count=b.spec.capacity)
    parts = []
    for i, c in enumerate(b.contents):
        if isinstance(c, Cube):
            parts.append(text("{color} cube", color=color_word(c.color)))
        elif isinstance(c, Order):
            parts.append(text("order {counter}", counter=counter_text(c.color, c.value)))
        else:
            want = b.spec.spots[i] if i < len(b.spec.spots) else None
            parts.append(text("free ({color})", color=color_word(want)) if want else text("free"))
    return joined(parts, ", ") if parts else NONE


def _collected(p: PlayerState) -> Text:
    """Collected counters with where they came from, e.g. "gray 1 (green), yellow 2 (red); bonus 2"."""
    got = [
        text("{counter} ({player})", counter=counter_text(c.color, c.value), player=c.source)
        for c in p.collected
    ]
    listed = joined(got, ", ") if got else NONE
    if not p.bonus:
        return listed
    return text("{collected}; bonus {values}", collected=listed, values=", ".join(str(b) for b in p.bonus))


def timer_text(game: GameState, p: PlayerState, tm: Timer) -> Text:
    """Where a sandtimer is and whether its sand runs."""
    if tm.symbol is None:
        return text("in front of the player")
    where = symbol_label(game, p, tm.symbol, tm.destination)
    if tm.running:
        return text("on {symbol} (sand running)", symbol=where)
    return text("on {symbol} (finished, waits to be lifted)", symbol=where)


def _timers_on(p: PlayerState, symbol: str) -> Text | str:
    on = [text("timer {index}", index=t + 1) for t, tm in enumerate(p.timers) if tm.symbol == symbol]
    return joined(on, ", ") if on else ""


def _control_center_panel(p: PlayerState, title: Text) -> dict[str, Any]:
    rows: list[list[Any]] = []
    for b in p.buildings:
        rows.append([b.id, BUILDING_WORDS[b.type], ROMAN[b.stage], _contents(b), _timers_on(p, b.id)])
    research = (
        text("empty")
        if p.research is None
        else text("{kind} II tile {tile}", kind=BUILDING_WORDS[p.research.stage2.type], tile=p.research.id)
    )
    rows.append([text("research"), text("research plant"), "", research, _timers_on(p, RESEARCH)])
    return {
        "kind": "table",
        "title": title,
        "columns": [text("Building"), text("Type"), text("Stage"), text("Spots"), text("Sandtimer")],
        "rows": rows,
    }


def _board_lines(game: GameState) -> list[Text]:
    lines: list[Text] = []
    ships: dict[str, list[str]] = {}
    travelling = []
    for p in game.players:
        ships.setdefault(p.ship, []).append(p.name)
        for t, tm in enumerate(p.timers):
            if tm.symbol == SHIP and tm.destination:
                travelling.append(
                    text(
                        "{player}'s ship flies {origin} → {destination} (timer {index})",
                        player=p.name,
                        origin=place_word(game, p.ship),
                        destination=place_word(game, tm.destination),
                        index=t + 1,
                    )
                )
    for p, bonus in zip(game.players, game.planet_bonus, strict=True):
        parts: list[Text] = [place_word(game, p.planet)]
        if bonus is not None:
            parts.append(text("bonus counter {value}", value=bonus))
        if p.planet in ships:
            parts.append(text("ships: {players}", players=tuple(ships[p.planet])))
        lines.append(joined(parts, " · "))
    for moon in game.moons:
        tiles = text("{count} tile", "{count} tiles", count=game.height(moon))
        top = game.top(moon)  # known to the hub deck; a table deck's piles lie face down to the hub
        if top is not None:
            tiles = text("{tiles}, top: {kind} II", tiles=tiles, kind=BUILDING_WORDS[top.stage2.type])
        parts = [text("{place}: {tiles}", place=place_word(game, moon), tiles=tiles)]
        if moon in ships:
            parts.append(text("ships: {players}", players=tuple(ships[moon])))
        lines.append(joined(parts, " · "))
    return lines + travelling


# --- pages ---------------------------------------------------------------------------------------


def table_view(game: GameState, seats: Sequence[Seat] = (), colours: dict[str, str] | None = None) -> View:
    """The dashboard: the picture of the board, then players, supply, board, orders and every control center.

    ``seats`` name each sandtimer's node in the picture; ``colours`` are the players' colours. In the
    full game's setup the starting orders are secret until every player has picked (setup step 9):
    the dashboard shows who has picked, not what.
    """
    secret = _picking(game)
    game = _as_shown(game)
    supply = joined(
        [
            text("{color}: {cubes}", color=COLOR_WORDS[c], cubes=n)
            for c, n in zip(COLORS, game.supply, strict=True)
        ],
        ", ",
    )
    summary = text(
        "Time 'n' Space, {variant}: {phase} · supply {supply}",
        variant=VARIANT_WORDS[game.variant],
        phase=PHASE_WORDS[game.phase],
        supply=supply,
    )
    players_rows = []
    for p in game.players:
        timers = joined([timer_text(game, p, tm) for tm in p.timers])
        players_rows.append(
            [
                p.name,
                place_word(game, p.planet),
                place_word(game, p.ship),
                timers,
                len(p.above),
                len(p.collected),
                sum(p.bonus),
            ]
        )
    panels: list[dict[str, Any]] = [
        {
            "kind": "table",
            "title": text("Players"),
            "columns": [
                text("Player"),
                text("Planet"),
                text("Ship"),
                text("Sandtimers"),
                text("Above"),
                text("Collected"),
                text("Bonus"),
            ],
            "rows": players_rows,
        },
        {
            "kind": "table",
            "title": text("Goods supply"),
            "columns": [COLOR_WORDS[c] for c in COLORS],
            "rows": [list(game.supply)],
        },
        {"kind": "lines", "title": text("Board"), "lines": _board_lines(game)},
        {
            "kind": "table",
            "title": text("Orders on the control centers"),
            "columns": [text("Player"), text("Placed orders"), text("Still above"), text("Collected below")],
            "rows": [
                [
                    p.name,
                    counters_text((o.color, o.value) for *_, o in p.placed_orders()),
                    counters_text((o.color, o.value) for o in p.above),
                    _collected(p),
                ]
                for p in game.players
            ],
        },
    ]
    panels += [
        _control_center_panel(p, text("{player}'s control center", player=p.name)) for p in game.players
    ]
    if secret:
        picked = tuple(p.name for p in secret if p.ready)
        waiting = tuple(p.name for p in secret if not p.ready)
        lines = [text("picked in secret: {players}", players=picked)] if picked else []
        lines.append(text("still picking: {players}", players=waiting))
        panels.append({"kind": "lines", "title": text("Starting orders"), "lines": lines})
    extra = {
        "phase": game.phase,
        "variant": game.variant,
        "picture": board_picture(game, seats, colours or {}),
    }
    return View(summary, tuple(panels), extra)


def _picking(game: GameState) -> tuple[PlayerState, ...]:
    """The players, while the full game's starting orders are still being picked in secret; else none."""
    if game.variant == "full" and game.phase == PHASE_SETUP and not all(p.ready for p in game.players):
        return game.players
    return ()


def _as_shown(game: GameState) -> GameState:
    """The game as everybody may see it: starting orders picked in secret are not shown until every
    player has picked (they are revealed together, "Setup for the Full Game", step 9)."""
    for p in _picking(game):
        if p.ready:
            game = game.with_player(orders_back_above(p))
    return game


def player_view(game: GameState, player: str) -> View:
    """A phone page: the player's sandtimers, control center and counters."""
    me = game.player(player)
    if me is None:
        return View(text("{player} does not play in this game", player=player))
    summary = text(
        "{player}: your spaceship is at {place} · {phase}",
        player=me.name,
        place=place_word(game, me.ship),
        phase=PHASE_WORDS[game.phase],
    )
    timer_lines = [
        text("Timer {index}: {where}", index=t + 1, where=timer_text(game, me, tm))
        for t, tm in enumerate(me.timers)
    ]
    if game.variant == "full" and not me.ready:
        timer_lines.append(text("Pick and place your 2 starting orders before the master clock starts"))
    collected = [
        text("{counter} ({player})", counter=counter_text(c.color, c.value), player=c.source)
        for c in me.collected
    ]
    counters = [
        text(
            "Above your control center: {counters}",
            counters=counters_text((o.color, o.value) for o in me.above),
        ),
        text("Collected: {counters}", counters=joined(collected, ", ") if collected else NONE),
        text("Bonus counters: {values}", values=", ".join(str(b) for b in me.bonus) if me.bonus else NONE),
    ]
    voids = tuple(COLOR_WORDS[c] for c in COLORS if any(o.color == c for o in me.above))
    if voids:
        counters.append(text("Still void at the end if not placed: {colors}", colors=voids))
    panels = (
        {"kind": "lines", "title": text("My sandtimers"), "lines": timer_lines},
        _control_center_panel(me, text("My control center")),
        {"kind": "lines", "title": text("My counters"), "lines": counters},
    )
    return View(summary, panels)


# --- the phone's menu ---------------------------------------------------------------------------


def phone_menu(
    seats: Sequence[Seat], game: GameState, player: str, intents: dict[str, Any], *, table_deck: bool = False
) -> list[MenuItem]:
    """Everything ``player`` can tap now; ``intents``: the choices stored per node of theirs;
    ``table_deck``: the players drew the random components from the box (and tell the hub)."""
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
                action=M.LiftEveryFinished(),
            )
        )
    if game.variant == "full" and game.phase == PHASE_SETUP and mine:
        node = mine[0].node
        items += _starting_menu(me, node, _intent(intents, node))
    if game.phase == PHASE_SETUP and me.ocher is not None and table_deck:
        items += _ocher_menu(game, me)
    for seat in sorted(mine, key=lambda s: (_urgency(me, s), s.index)):
        if seat.index - 1 < len(me.timers):
            items += _timer_menu(game, me, seat, _intent(intents, seat.node))
    items += _together_menu(game, me)
    items += _handover_menu(game, me)
    return items


def _intent(intents: dict[str, Any], node: str) -> Intent:
    chosen = intents.get(node)
    return chosen if isinstance(chosen, Intent) else NO_CHOICE


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


def _together_menu(game: GameState, me: PlayerState) -> list[MenuItem]:
    """Ships of two or more players wait at my planet: I decide who fulfils first ("1. Your spaceship")."""
    if game.phase not in (PHASE_RUNNING, PHASE_ENDING):
        return []
    ships = waiting_ships(game, me)
    if len(ships) < 2:
        return []
    items = []
    for order in permutations(ships):
        grouped = together(game, me.name, order)
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
                action=M.LiftShipsTogether(tuple(M.Ship(name, t + 1) for name, t in order)),
            )
        )
    return items


def _ship_text(choice: M.Choice | None) -> Text:
    return text("fulfil nothing") if choice is None else choice_text(choice)


def _handover_menu(game: GameState, me: PlayerState) -> list[MenuItem]:
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
        current = game.handover_pick(me, color, value) or where[0]
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
                    action=M.HandOverFirst(color, value, bid, i),
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


def _timer_menu(game: GameState, me: PlayerState, seat: Seat, intent: Intent) -> list[MenuItem]:
    t, node, n = seat.index - 1, seat.node, seat.index
    timer = me.timers[t]
    items: list[MenuItem] = []
    pre = f"t{n}"
    lift_now: list[MenuItem] = []
    if timer.symbol is not None:
        here = symbol_label(game, me, timer.symbol, timer.destination)
        group = text("Timer {index}: when lifted from {symbol}", index=n, symbol=here)
        items += _choice_menu(game, me, t, node, intent, group, pre)
        if not timer.running:
            doing = choice_text(lift_choice(game, me.name, t, intent))
            lift_now.append(
                MenuItem(
                    f"{pre}-lift",
                    text("Lift now ({doing}) and set it aside", doing=doing),
                    text("Timer {index}: now", index=n),
                    action=M.Lift(n, intent),
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
                intent=replace(intent, symbol=option.symbol, destination=option.destination),
                node=node,
                selected=option == chosen,
            )
        )
    return items + _first_selected(nexts) + lift_now


def _lifted(game: GameState, name: str, t: int, intent: Intent, *, ran_through: bool) -> GameState:
    """A preview: the state after this sandtimer ran through and was lifted as the intent says
    (forfeiting when that is not legal, or putting the top tile under a pile), to list where it can go next."""
    if not ran_through:
        game = _after(game, M.SandRanOut(name, t))
    for choice in (lift_choice(game, name, t, intent), None, M.MoonTile(False)):
        result = apply(game, M.LiftTimer(name, t, choice))
        if not isinstance(result, Rejected):
            return result.state
    return game


def _choice_menu(
    game: GameState, me: PlayerState, t: int, node: str, intent: Intent, group: Text, pre: str
) -> list[MenuItem]:
    """The choices of the pending lift: the usual (preselected) one first, long toggle lists last."""
    timer = me.timers[t]
    symbol = timer.symbol

    def item(key: str, label: Text, chosen: Intent, selected: bool) -> MenuItem:
        return MenuItem(f"{pre}-{key}", label, group, intent=chosen, node=node, selected=selected)

    if symbol == SHIP:
        return _ship_menu(game, me, timer, intent, item, pre, group)
    forfeit = intent.forfeit
    forfeit_item = item(
        "forfeit", text("Forfeit the action"), replace(intent, forfeit=True, upgrade=False), forfeit
    )
    if symbol == RESEARCH:
        target = intent.build or default_build(me)
        builds = [
            item(
                f"build-{under.id}",
                text("Build onto {building}", building=building_label(under)),
                replace(intent, build=under.id, forfeit=False),
                not forfeit and target == under.id,
            )
            for under in me.buildings
            if under.stage == 1 and under.is_unoccupied() and all(tm.symbol != under.id for tm in me.timers)
        ]
        return _first_selected([forfeit_item], rest=builds)
    b = me.building(symbol) if symbol else None
    if b is None:
        return []
    upgrade = intent.upgrade and not forfeit
    doing = not forfeit and not upgrade
    plain = replace(intent, forfeit=False, upgrade=False)
    items: list[MenuItem] = []
    toggles: list[MenuItem] = []
    if b.type == "production":
        items.append(item("produce", text("Produce into every free spot"), plain, doing))
    elif b.type == "beam":
        cubes = list(intent.beam) if intent.beam is not None else default_beam(game, me, b)
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
                    item(
                        f"beam-{source.id}-{i}",
                        text(
                            "Beam {color} from {building} spot {spot}",
                            color=color_word(c.color),
                            building=source.id,
                            spot=i + 1,
                        ),
                        replace(plain, beam=tuple(beamed)),
                        doing and on,
                    )
                )
        items.append(item("beam-none", text("Beam nothing"), replace(plain, beam=()), doing and not cubes))
    else:
        counters, _ = trade_selection(me, b, intent)
        have = Counter(counters)
        cap = b.spec.capacity
        base = counters if intent.trade is not None else []  # the first tap starts a selection of one's own
        for key in sorted({(o.color, o.value) for o in me.above}, key=lambda k: (COLORS.index(k[0]), k[1])):
            left = sum(1 for o in me.above if (o.color, o.value) == key)
            traded = (base + [key])[-cap:] if cap else base
            toggles.append(
                item(
                    f"trade-{key[0]}-{key[1]}",
                    text(
                        "Place {counter} ({chosen} of {left} chosen)",
                        counter=counter_text(*key),
                        chosen=have[key],
                        left=left,
                    ),
                    replace(plain, trade=tuple(traded)),
                    doing and have[key] > 0,
                )
            )
        items.append(
            item("trade-none", text("Place no orders"), replace(plain, trade=()), doing and not counters)
        )
    if b.stage == 2:
        items.append(
            item(
                "upgrade",
                text("Upgrade to stage III instead (unoccupied only)"),
                replace(intent, upgrade=True, forfeit=False),
                upgrade,
            )
        )
    items.append(forfeit_item)
    out = _first_selected(items, rest=toggles)
    if b.type == "trading":
        out += _space_menu(me, b, node, intent, pre, t + 1, doing=doing)
    return out


def _ship_menu(
    game: GameState, me: PlayerState, timer: Timer, intent: Intent, item: Any, pre: str, group: Text
) -> list[MenuItem]:
    """The choices of a spaceship's lift: which orders to fulfil at a planet, or the tile at a moon."""
    here = timer.destination or me.ship
    owner = game.owner_of(here)
    forfeit = intent.forfeit
    if owner is None and game.variant == "intro" or owner is not None and owner.name == me.name:
        nothing = (
            text("Nothing to do at your own planet")
            if owner is not None
            else text("Nothing to do at a moon in the introductory game")
        )
        return [MenuItem(f"{pre}-nothing", nothing, group)]
    if owner is not None:
        wanted = list(intent.deliver) if intent.deliver is not None else default_deliver(game, me, owner)
        have = Counter(wanted)
        seen: Counter[tuple[str, int]] = Counter()
        toggles = []
        for bid, _i, order in owner.placed_orders():
            key = (order.color, order.value)
            seen[key] += 1
            k = seen[key]
            on = have[key] >= k and not forfeit
            count = dict(have)
            count[key] = k - 1 if on else k
            delivered = [x for x in wanted if x != key] + [key] * count[key]
            toggles.append(
                item(
                    f"deliver-{bid}-{_i}",
                    text(
                        "Fulfil {player}'s {counter} ({building})",
                        player=owner.name,
                        counter=counter_text(order.color, order.value),
                        building=bid,
                    ),
                    replace(intent, deliver=tuple(delivered), forfeit=False),
                    on,
                )
            )
        none = item(
            "deliver-none",
            text("Fulfil nothing"),
            replace(intent, deliver=(), forfeit=False),
            not forfeit and not wanted,
        )
        return _first_selected([none], rest=toggles)
    height = game.height(here)
    mode = intent.moon or default_moon(game, me, here)
    mode = "skip" if forfeit else mode
    items = _tile_items(game, me, here, intent, item, taking=mode == "research")
    options: list[tuple[M.MoonChoice, Text]] = [
        ("bottom", text("Put the top tile under the pile")),
        ("skip", text("Skip: one or no tile is left")),
    ]
    allowed = {"bottom": height > 0, "skip": height <= 1}
    items += [
        item(f"moon-{choice}", label, replace(intent, moon=choice, tile=None, forfeit=False), mode == choice)
        for choice, label in options
        if allowed[choice] or mode == choice
    ]
    return _first_selected(items)


def _tile_items(
    game: GameState, me: PlayerState, moon: str, intent: Intent, item: Any, *, taking: bool
) -> list[MenuItem]:
    """ "Take the top tile (...) into the research plant": the top tile when the hub knows it (the hub deck),
    else one button per kind of tile the pile can still hold, the likeliest first: the player taps the one
    they find on top (read off the table)."""
    if me.research is not None and not taking:
        return []
    top = game.top(moon)
    if top is not None or not game.height(moon):
        shown = tile_label(top) if top is not None else text("no tile")
        label = text("Take the top tile ({tile}) into the research plant", tile=shown)
        return [
            item("moon-research", label, replace(intent, moon="research", tile=None, forfeit=False), taking)
        ]
    kinds = tile_kinds(game, game.possible_tops(moon))
    chosen = moon_tile(game, moon, intent) if taking else None
    picked = game.tile(chosen) if chosen is not None else None
    long = len(kinds) > LONG_GROUP
    out = []
    for tile, ids in kinds:
        same = picked is not None and (picked.stage2, picked.stage3) == (tile.stage2, tile.stage3)
        label = text("Take {tile} into the research plant", tile=tile_words(tile))
        chosen_intent = replace(intent, moon="research", tile=ids[0], forfeit=False)
        out.append(
            replace(item(f"moon-research-{ids[0]}", label, chosen_intent, taking and same), search=long)
        )
    return out


def tile_label(tile: Tile) -> Text:
    """A stage II tile as the moon's button names it: its type and stage ("beam station II")."""
    return text("{kind} {stage}", kind=BUILDING_WORDS[tile.stage2.type], stage="II")


def _space_menu(
    me: PlayerState, b: Building, node: str, intent: Intent, pre: str, n: int, *, doing: bool
) -> list[MenuItem]:
    """Where a trading center's new orders go: the free order spaces, the chosen ones first."""
    _, spaces = trade_selection(me, b, intent)
    free = order_spaces(me)
    chosen_spaces = [s for s in intent.spaces if s in free]
    space_group = text("Timer {index}: order spaces for the new orders", index=n)
    items = []
    for bid, i in free:
        on = (bid, i) in spaces
        new_spaces = [x for x in chosen_spaces if x != (bid, i)] if on else chosen_spaces + [(bid, i)]
        target = me.building(bid)
        assert target is not None
        items.append(
            MenuItem(
                f"{pre}-space-{bid}-{i}",
                text("{building} spot {spot}", building=building_label(target), spot=i + 1),
                space_group,
                intent=replace(intent, spaces=tuple(new_spaces)),
                node=node,
                selected=doing and on,
            )
        )
    return _first_selected(items)


def _ocher_menu(game: GameState, me: PlayerState) -> list[MenuItem]:
    """Introductory game, before the clock: which ocher tile I drew (setup step 7), the likeliest first;
    a tap replaces an earlier answer."""
    cover = me.ocher
    assert cover is not None
    pool = game.ocher if cover.tile is None else game.ocher.put(cover.tile)
    mine = game.tile(cover.tile) if cover.tile is not None else None
    kinds = tile_kinds(game, pool)
    group = text("Setup: the ocher tile I drew for {building}", building=cover.building)
    return [
        MenuItem(
            f"ocher-{ids[0]}",
            tile_words(tile, 3),
            group,
            action=M.OcherTile(ids[0]),
            selected=mine is not None and (mine.stage2, mine.stage3) == (tile.stage2, tile.stage3),
            search=len(kinds) > LONG_GROUP,
        )
        for tile, ids in kinds
    ]


def _starting_menu(me: PlayerState, node: str, intent: Intent) -> list[MenuItem]:
    """The 2 starting orders, picked in secret; once placed they stay preselected, and placing again
    before the clock starts corrects them."""
    if me.ready:
        placed = [(bid, i, o) for bid, i, o in me.placed_orders()]
        me = orders_back_above(me)
        if intent.start_orders is None:
            intent = replace(intent, start_orders=tuple((o.color, o.value) for *_, o in placed))
        if not intent.start_spaces:
            intent = replace(intent, start_spaces=tuple((bid, i) for bid, i, _ in placed))
    counters, spaces = starting_selection(me, intent)
    have = Counter(counters)
    free = order_spaces(me)
    chosen_spaces = [s for s in intent.start_spaces if s in free]
    orders = tuple(M.OrderPlacement(c, v, s[0], s[1]) for (c, v), s in zip(counters, spaces, strict=False))
    label = text(
        "Place {orders}",
        orders=tuple(
            text(
                "{counter} on {building} spot {spot}",
                counter=counter_text(o.color, o.value),
                building=o.building,
                spot=o.spot + 1,
            )
            for o in orders
        ),
    )
    items = [MenuItem("start-place", label, text("Starting orders"), action=M.StartingOrders(orders))]
    group = text("Starting orders: pick 2 counters")
    picks = []
    for key in sorted({(o.color, o.value) for o in me.above}, key=lambda k: (COLORS.index(k[0]), k[1])):
        new = (counters + [key])[-2:]
        picks.append(
            MenuItem(
                f"start-pick-{key[0]}-{key[1]}",
                counter_text(*key),
                group,
                intent=replace(intent, start_orders=tuple(new)),
                node=node,
                selected=have[key] > 0,
            )
        )
    items += _first_selected(picks)
    group = text("Starting orders: pick 2 order spaces")
    places = []
    for bid, i in free:
        on = (bid, i) in spaces
        new_spaces = [x for x in chosen_spaces if x != (bid, i)] if on else (chosen_spaces + [(bid, i)])[-2:]
        b = me.building(bid)
        assert b is not None
        places.append(
            MenuItem(
                f"start-space-{bid}-{i}",
                text("{building} spot {spot}", building=building_label(b), spot=i + 1),
                group,
                intent=replace(intent, start_spaces=tuple(new_spaces)),
                node=node,
                selected=on,
            )
        )
    return items + _first_selected(places)


def _after(game: GameState, action: Any) -> GameState:
    """A preview: the state after ``action``, or the same state when it is not legal."""
    result = apply(game, action)
    return game if isinstance(result, Rejected) else result.state
