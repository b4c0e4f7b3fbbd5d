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
    order_spaces,
    starting_selection,
    tile_kinds,
    together,
    waiting_ships,
)
from companion.games.time_n_space.components import COLORS
from companion.games.time_n_space.engine import apply, orders_back_above
from companion.games.time_n_space.lift_menu import LONG_GROUP, timer_menu
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
    tile_words,
)
from companion.rules.outcome import Rejected
from companion.rules.pages import HostAction, MenuItem, View
from companion.rules.setup import Seat
from companion.rules.text import Text, joined, text

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
    research = text("empty") if p.research is None else text("{tile} tile", tile=tile_words(p.research))
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
    return View(summary, tuple(panels), extra, host_actions=_host_actions(game))


def _host_actions(game: GameState) -> tuple[HostAction, ...]:
    """After the master clock: the host may lift every finished sandtimer at once (asked first)."""
    waiting = sum(tm.symbol is not None and not tm.running for p in game.players for tm in p.timers)
    if game.phase != PHASE_ENDING or not waiting:
        return ()
    return (
        HostAction(
            "finish",
            text("Lift every finished sandtimer now"),
            text(
                "Lift the {count} finished sandtimer now with its default action? "
                "The players' own choices for it are not used.",
                "Lift the {count} finished sandtimers now, each with its default action? "
                "The players' own choices for them are not used.",
                count=waiting,
            ),
            M.LiftEveryFinished(),
        ),
    )


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
    if game.variant == "full" and game.phase == PHASE_SETUP and mine:
        node = mine[0].node
        items += _starting_menu(game, me, node, _intent(intents, node))
    if game.phase == PHASE_SETUP and me.ocher is not None and table_deck:
        items += _ocher_menu(game, me)
    for seat in mine:  # in the timers' order, so no group moves when a sand runs out
        if seat.index - 1 < len(me.timers):
            items += timer_menu(game, me, seat, _intent(intents, seat.node))
    items += _together_menu(game, me)
    items += _handover_menu(game, me)
    return items


def _intent(intents: dict[str, Any], node: str) -> Intent:
    chosen = intents.get(node)
    return chosen if isinstance(chosen, Intent) else NO_CHOICE


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


def _starting_menu(game: GameState, me: PlayerState, node: str, intent: Intent) -> list[MenuItem]:
    """The 2 starting orders, picked in secret; once placed they stay preselected, and placing again
    before the clock starts corrects them. "Place" is offered when the rules accept the pick."""
    player = me
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
    items = []
    if not isinstance(apply(game, M.PlaceStartingOrders(player.name, orders)), Rejected):
        items.append(MenuItem("start-place", label, text("Starting orders"), action=M.StartingOrders(orders)))
    group = text("Starting orders: pick 2 counters")
    picks = []
    left = Counter((o.color, o.value) for o in me.above)
    for key in sorted(left, key=lambda k: (COLORS.index(k[0]), k[1])):
        again = counters.count(key) < left[key]  # one more of it, else it moves to the latest pick
        new = ([*counters, key] if again else [*(c for c in counters if c != key), key])[-2:]
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
    items += picks
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
    return items + places
