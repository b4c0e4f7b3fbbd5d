"""The phone's buttons for one Time 'n' Space sandtimer: what its lift does, and where it goes next.

Built from the flip's :class:`~.plan.Plan`, so the buttons shown selected are exactly what the
next flip does, and every button leads to a plan the engine accepts (each is tried on a copy
of the state as the sandtimer would be lifted now; nothing is applied).

A tap chooses what it names. On the preselected defaults, a tap on one cube, counter, order or
order space chooses that one alone; after that, a tap adds one more of it (older picks give
way when they no longer fit: the beam station's free spots, the trading center's capacity, the
goods the beam stations hold), and a tap on one already chosen that cannot be added again
takes it back. The buttons keep their places: each list is in the board's order, whatever is
chosen.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from companion.games.time_n_space import model as M
from companion.games.time_n_space.choices import lift_choice, order_spaces, running, tile_kinds
from companion.games.time_n_space.components import COLORS
from companion.games.time_n_space.engine import legal_placements
from companion.games.time_n_space.model import (
    PHASE_ENDING,
    PHASE_OVER,
    RESEARCH,
    SHIP,
    Cube,
    GameState,
    Intent,
    PlayerState,
)
from companion.games.time_n_space.plan import accepted, as_lifted, plan
from companion.games.time_n_space.words import (
    BUILDING_WORDS,
    building_label,
    choice_text,
    color_word,
    counter_text,
    symbol_label,
    symbol_option,
    tile_words,
)
from companion.rules.pages import MenuItem
from companion.rules.setup import Seat
from companion.rules.text import Text, text

LONG_GROUP = 6
"""More kinds of tile than this, and the phone lets the player search the buttons."""

X = TypeVar("X")


def after_tap(
    current: tuple[X, ...] | None, picked: X, *, available: int, fits: Callable[[tuple[X, ...]], bool]
) -> tuple[X, ...]:
    """The selection after a tap on ``picked`` (see the module docstring). ``current`` None: the
    defaults are in effect; ``available``: how many of ``picked`` there are to choose."""
    if current is None:
        return (picked,)
    if current.count(picked) < available:
        more = (*current, picked)
        while not fits(more) and any(c != picked for c in more):
            first_other = next(i for i, c in enumerate(more) if c != picked)
            more = more[:first_other] + more[first_other + 1 :]
        if fits(more):
            return more
    return tuple(c for c in current if c != picked)


def timer_menu(game: GameState, me: PlayerState, seat: Seat, intent: Intent) -> list[MenuItem]:
    """The buttons of one sandtimer: its lift's choices, its next symbol, and "Lift now"."""
    t, node, n = seat.index - 1, seat.node, seat.index
    timer = me.timers[t]
    flip = plan(game, me.name, t, intent)
    intent = flip.intent
    pre = f"t{n}"
    items: list[MenuItem] = []
    lift_now: list[MenuItem] = []
    if timer.symbol is not None and flip.lift is not None:
        ready = as_lifted(game, me.name, t)
        here = symbol_label(game, me, timer.symbol, timer.destination)
        group = text("Timer {index}: when lifted from {symbol}", index=n, symbol=here)
        items += _Choices(ready, me.name, t, node, intent, flip.lift.choice, group, pre).items()
        if not timer.running and plan(game, me.name, t, intent, placing=False).refused is None:
            lift_now.append(
                MenuItem(
                    f"{pre}-lift",
                    text("Lift now ({doing}) and set it aside", doing=choice_text(flip.lift.choice)),
                    text("Timer {index}: now", index=n),
                    action=M.Lift(n, intent),
                )
            )
    if game.phase in (PHASE_ENDING, PHASE_OVER):
        return items + lift_now
    after = running(flip.lifted)
    mover = after.player(me.name)
    assert mover is not None
    group = text("Timer {index}: next symbol", index=n)
    legal = legal_placements(after, me.name, t)
    if not legal:
        return [*items, MenuItem(f"{pre}-next-none", text("No free time symbol for this sandtimer"), group)]
    nexts = []
    for option in legal:
        key = f"{option.symbol}-{option.destination}" if option.destination else f"{option.symbol}"
        nexts.append(
            MenuItem(
                f"{pre}-next-{key}",
                symbol_option(after, mover, option.symbol, option.destination),
                group,
                intent=replace(intent, symbol=option.symbol, destination=option.destination),
                node=node,
                selected=option == flip.place,
            )
        )
    return items + nexts + lift_now


class _Choices:
    """The choices of one pending lift, on the state as the sandtimer is lifted (``game``)."""

    def __init__(
        self,
        game: GameState,
        name: str,
        t: int,
        node: str,
        intent: Intent,
        choice: M.Choice | None,
        group: Text,
        pre: str,
    ) -> None:
        me = game.player(name)
        assert me is not None
        self.game, self.me, self.t, self.node = game, me, t, node
        self.intent, self.choice, self.group, self.pre = intent, choice, group, pre

    def ok(self, chosen: Intent) -> bool:
        """The engine accepts the lift these choices make."""
        lift = M.LiftTimer(self.me.name, self.t, lift_choice(self.game, self.me.name, self.t, chosen))
        return accepted(self.game, lift) is not None

    def item(
        self, key: str, label: Text, chosen: Intent, selected: bool, *, search: bool = False
    ) -> MenuItem:
        return MenuItem(
            f"{self.pre}-{key}",
            label,
            self.group,
            intent=chosen,
            node=self.node,
            selected=selected,
            search=search,
        )

    def offer(self, key: str, label: Text, chosen: Intent, selected: bool, **kw: Any) -> list[MenuItem]:
        """One button, when the engine accepts what it chooses."""
        return [self.item(key, label, chosen, selected, **kw)] if self.ok(chosen) else []

    def items(self) -> list[MenuItem]:
        timer = self.me.timers[self.t]
        if timer.symbol == SHIP:
            return self.ship()
        plain = replace(self.intent, forfeit=False, upgrade=False)
        forfeit = self.offer(
            "forfeit",
            text("Forfeit the action"),
            replace(self.intent, forfeit=True, upgrade=False),
            self.choice is None,
        )
        if timer.symbol == RESEARCH:
            builds = []
            for under in self.me.buildings:
                chosen = replace(plain, build=under.id)
                builds += self.offer(
                    f"build-{under.id}",
                    text("Build onto {building}", building=building_label(under)),
                    chosen,
                    self.choice == M.Build(under.id),
                )
            return builds + forfeit
        b = self.me.building(timer.symbol or "")
        if b is None:
            return []
        items: list[MenuItem] = []
        if b.type == "production":
            if isinstance(lift_choice(self.game, self.me.name, self.t, plain), M.Produce):
                items += self.offer(
                    "produce",
                    text("Produce into every free spot"),
                    plain,
                    isinstance(self.choice, M.Produce),
                )
        elif b.type == "beam":
            items += self.beam(plain, len(b.free_spots()))
        else:
            items += self.trade(plain, b)
        if b.stage == 2:
            items += self.offer(
                "upgrade",
                text("Upgrade to stage III instead (unoccupied only)"),
                replace(self.intent, upgrade=True, forfeit=False),
                isinstance(self.choice, M.Upgrade),
            )
        items += forfeit
        if b.type == "trading" and isinstance(self.choice, M.Trade) and self.choice.orders:
            items += self.spaces(b.id)
        return items

    def beam(self, plain: Intent, room: int) -> list[MenuItem]:
        beamed = tuple(self.choice.cubes) if isinstance(self.choice, M.Beam) else ()
        current = plain.beam if plain.beam is not None else None
        items = []
        for source in self.me.buildings:
            if source.type != "production":
                continue
            for i, c in enumerate(source.contents):
                if not isinstance(c, Cube) or not self.ok(replace(plain, beam=((source.id, i),))):
                    continue
                cubes = after_tap(current, (source.id, i), available=1, fits=lambda sel: len(sel) <= room)
                items.append(
                    self.item(
                        f"beam-{source.id}-{i}",
                        text(
                            "Beam {color} from {building} spot {spot}",
                            color=color_word(c.color),
                            building=source.id,
                            spot=i + 1,
                        ),
                        replace(plain, beam=cubes),
                        (source.id, i) in beamed,
                    )
                )
        return items

    def trade(self, plain: Intent, center: Any) -> list[MenuItem]:
        placing = Counter(
            (o.color, o.value) for o in (self.choice.orders if isinstance(self.choice, M.Trade) else ())
        )
        cap = min(center.spec.capacity, len(order_spaces(self.me)))
        left = Counter((o.color, o.value) for o in self.me.above)
        items = []
        for key in sorted(left, key=lambda k: (COLORS.index(k[0]), k[1])):
            traded = after_tap(plain.trade, key, available=left[key], fits=lambda sel: len(sel) <= cap)
            items += self.offer(
                f"trade-{key[0]}-{key[1]}",
                text(
                    "Place {counter} ({chosen} of {left} chosen)",
                    counter=counter_text(*key),
                    chosen=placing[key],
                    left=left[key],
                ),
                replace(plain, trade=traded),
                placing[key] > 0,
            )
        return items

    def spaces(self, center: str) -> list[MenuItem]:
        """Where the trading center's new orders go: the free order spaces, in the board's order."""
        assert isinstance(self.choice, M.Trade)
        used = [(o.building, o.spot) for o in self.choice.orders]
        count = len(used)
        current = self.intent.spaces or None
        group = text("Timer {index}: order spaces for the new orders", index=self.t + 1)
        items = []
        for bid, i in sorted(order_spaces(self.me), key=self._board_order):
            target = self.me.building(bid)
            assert target is not None
            chosen = after_tap(current, (bid, i), available=1, fits=lambda sel: len(sel) <= count)
            items.append(
                MenuItem(
                    f"{self.pre}-space-{bid}-{i}",
                    text("{building} spot {spot}", building=building_label(target), spot=i + 1),
                    group,
                    intent=replace(self.intent, spaces=chosen),
                    node=self.node,
                    selected=(bid, i) in used,
                )
            )
        return items

    def _board_order(self, space: tuple[str, int]) -> tuple[int, int]:
        ids = [b.id for b in self.me.buildings]
        return ids.index(space[0]), space[1]

    def ship(self) -> list[MenuItem]:
        """A spaceship's lift: which orders to fulfil at a planet, or what to do with a moon's tiles."""
        timer = self.me.timers[self.t]
        here = timer.destination or self.me.ship
        owner = self.game.owner_of(here)
        if owner is None and self.game.variant == "intro" or owner is not None and owner.name == self.me.name:
            nothing = (
                text("Nothing to do at your own planet")
                if owner is not None
                else text("Nothing to do at a moon in the introductory game")
            )
            return [MenuItem(f"{self.pre}-nothing", nothing, self.group)]
        plain = replace(self.intent, forfeit=False)
        if owner is not None:
            return self.deliveries(plain, owner)
        return self.moon(plain, here)

    def deliveries(self, plain: Intent, owner: PlayerState) -> list[MenuItem]:
        fulfilling = Counter(
            (d.color, d.value) for d in (self.choice.orders if isinstance(self.choice, M.Deliver) else ())
        )
        shown = Counter((o.color, o.value) for *_, o in owner.placed_orders())

        def pays(sel: tuple[tuple[str, int], ...]) -> bool:
            return self.ok(replace(plain, deliver=sel))

        items = []
        for key in shown:  # in the order the owner's board shows them
            if not pays((key,)):
                continue
            counter = counter_text(*key)
            label = (
                text("Fulfil {player}'s {counter}", player=owner.name, counter=counter)
                if shown[key] == 1
                else text(
                    "Fulfil {player}'s {counter} ({chosen} of {shown} chosen)",
                    player=owner.name,
                    counter=counter,
                    chosen=fulfilling[key],
                    shown=shown[key],
                )
            )
            wanted = after_tap(plain.deliver, key, available=shown[key], fits=pays)
            items.append(
                self.item(
                    f"deliver-{key[0]}-{key[1]}", label, replace(plain, deliver=wanted), fulfilling[key] > 0
                )
            )
        items += self.offer(
            "deliver-none", text("Fulfil nothing"), replace(plain, deliver=()), self.choice is None
        )
        return items

    def moon(self, plain: Intent, moon: str) -> list[MenuItem]:
        items = self.tiles(plain, moon)
        choice = self.choice
        items += self.offer(
            "moon-bottom",
            text("Put the top tile under the pile"),
            replace(plain, moon="bottom", tile=None),
            isinstance(choice, M.MoonTile) and not choice.research,
        )
        items += self.offer(
            "moon-skip",
            text("Skip: one or no tile is left"),
            replace(plain, moon="skip", tile=None),
            choice is None,
        )
        return items

    def tiles(self, plain: Intent, moon: str) -> list[MenuItem]:
        """ "Take the top tile (...) into the research plant": the top tile when the hub knows it (the hub
        deck), else one button per kind of tile the pile can still hold, the likeliest first: the player
        taps the one they find on top (read off the table)."""
        choice = self.choice
        taking = isinstance(choice, M.MoonTile) and choice.research
        top = self.game.top(moon)
        if top is not None or not self.game.height(moon):
            shown = tile_label(top) if top is not None else text("no tile")
            label = text("Take the top tile ({tile}) into the research plant", tile=shown)
            return self.offer("moon-research", label, replace(plain, moon="research", tile=None), taking)
        kinds = tile_kinds(self.game, self.game.possible_tops(moon))
        picked = (
            self.game.tile(choice.tile) if taking and isinstance(choice, M.MoonTile) and choice.tile else None
        )
        out = []
        for tile, ids in kinds:
            same = picked is not None and (picked.stage2, picked.stage3) == (tile.stage2, tile.stage3)
            out += self.offer(
                f"moon-research-{ids[0]}",
                text("Take {tile} into the research plant", tile=tile_words(tile)),
                replace(plain, moon="research", tile=ids[0]),
                same,
                search=len(kinds) > LONG_GROUP,
            )
        return out


def tile_label(tile: Any) -> Text:
    """A stage II tile as the moon's button names it: its type and stage ("beam station II")."""
    return text("{kind} {stage}", kind=BUILDING_WORDS[tile.stage2.type], stage="II")
