"""Space Dealer rules engine: ``apply(state, action) -> Accepted | Rejected``.

Pure: no clock, no I/O, no global randomness. The shuffles of the setup use a
``random.Random(seed)`` of their own, never the module's shared generator; after the
setup nothing is random (cards are drawn from the top of the stacks). The card data is
handed in (``GAME.data``, or a user's corrected copy): the engine reads no files. Time
arrives as actions (:class:`TimerRanOut`, :class:`MasterClockExpired`). Every rejection
names the rule it enforces.

Section numbers refer to the Space Dealer rulebook (``rulebooks/space-dealer.txt``).
"""

from __future__ import annotations

import random  # used only as a seeded private generator, random.Random(seed) in setup(); never the shared one
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import CompanionError
from companion.games.base import Accepted, Rejected
from companion.games.space_dealer.actions import (
    AbandonJob,
    Action,
    AtNeutralPlanet,
    BuildCard,
    DiscardCard,
    DrawTechCards,
    Event,
    GameEndedEarly,
    GiveCard,
    Holder,
    InDepot,
    InShip,
    Job,
    KeepDrawnCard,
    LaunchRocket,
    MasterClockExpired,
    MoveShip,
    OnProbe,
    PlaceBuiltCard,
    PlayCard,
    RaiseTechLevel,
    ReturnGoods,
    Sabotage,
    SatisfyOrder,
    StartJob,
    TimerRanOut,
    TradeCards,
    TransferGoods,
    UseCard,
)
from companion.games.space_dealer.cards import CardData, CardType, OrderSpec
from companion.games.space_dealer.names import STATUS_TEXT, colour_text, colours_text, type_text
from companion.games.space_dealer.scoring import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    FinalScore,
    SatisfiedOrder,
    score_orders,
)
from companion.games.space_dealer.state import (
    BuiltCard,
    Card,
    GameState,
    Goods,
    NeutralPlanet,
    Phase,
    PlayerState,
    Ship,
    Timer,
    TimerStatus,
)
from companion.rules.text import Text, TextError, text

Result = Accepted[GameState] | Rejected

LEFT, RIGHT = 0, 1
PLANT_SITES = {-2: LEFT, 2: RIGHT}
"""Build-site units of the power plants: left and right of the planet (units 0 and 1)."""
PLANET_UNITS = (0, 1)
NEUTRAL_SHIP_IDS = ("neutral", "neutral-2")
EARLY_END = "the host ended the game early"
"""The ``reason`` of the ``GameEnded`` fact when the host ended the game (``GameEndedEarly``)."""

R_SETUP = text("rulebook 2, Setup")
R_PLAY = text("rulebook 3.1, Playing Technology Cards")
R_JOB = text("rulebook 3.2, Assigning a Job to a Timer")
R_TECH = text("rulebook 3.2.1, Raising the Planet's Technology Level")
R_BUILD = text("rulebook 3.2.2, Building a Technology Card")
R_USE = text("rulebook 3.2.3, Using a Technology Card")
R_MOVE = text("rulebook 3.2.4, Moving a Spaceship")
R_GOODS = text("rulebook 3.3, Exchanging Goods")
R_ORDER = text("rulebook 3.4, Satisfying Orders")
R_END = text("rulebook 4, End of Game")
R_CARDS = text("rulebook 5.1, Additional Technology Cards")
R_SABOTAGE = text("rulebook 5.1d, Sabotage Probe")
R_ROCKET = text("rulebook 5.1e, Interstellar Rocket")
R_PROBE = text("rulebook 5.1f, Transport Probe")
R_DISCARD = text("rulebook 5.1, discarding from the planning area")
R_TRADE = text("rulebook 5.2, Trading Technology")
R_NEUTRAL = text("rulebook 5.3, Neutral Planets")


class SetupError(CompanionError, TextError):
    """The game cannot be set up as asked (player count, names, start choices); ``.text`` in words."""


@dataclass(frozen=True)
class Start:
    """A player's secret start choice (rulebook 2): Generator side and the first Mine.

    ``side`` is ``left`` or ``right``; ``mine`` is a goods colour of one of the player's
    Mines (default: the first Mine dealt); ``x`` the unit under the Generator it stands on.
    """

    side: str = "left"
    mine: str = ""
    x: int | None = None


# =====================================================================================
# setup
# =====================================================================================


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def setup(
    players: Sequence[str],
    *,
    seed: int,
    data: CardData,
    experienced: bool = True,
    starts: Mapping[str, Start] | None = None,
) -> GameState:
    """Set up a table for 3 to 8 players with the card ``data`` (rulebook 2; 5.1 and 5.3 when ``experienced``).

    One box serves 3-4 players, two boxes 5-8; the cards of each box are reduced to the
    3- or 4-player set the rulebook names for the player count, chosen at random with
    ``seed``. Each player gets a personal stack (3 Mines from a pile missing one colour,
    2 Generators, 1 Depot), builds one Generator and one Mine, and starts at
    technology level 1 with 2 inactive timers and the spaceship at the own planet.
    """
    names = list(players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise SetupError(
            text(
                "Space Dealer is played by {low} to {high} players, not {players}",
                low=MIN_PLAYERS,
                high=MAX_PLAYERS,
                players=len(names),
            )
        )
    if not all(isinstance(n, str) and n.strip() for n in names) or len(set(names)) != len(names):
        raise SetupError(text("Player names must be different and not empty"))
    if any(n.startswith("neutral") for n in names):
        raise SetupError(
            text("A player's name may not start with \"neutral\": that is the neutral spaceship's name")
        )
    if len(names) not in data.sets:
        raise SetupError(text("The card data has no card sets for {players} players", players=len(names)))
    rng = random.Random(seed)
    basic_sets, exp_sets = data.sets[len(names)]
    boxes = max(len(basic_sets), len(exp_sets) if experienced else 0)

    cards: dict[str, Card] = {}
    numbers: dict[str, int] = {}

    def new_card(type_name: str, colour: str = "") -> str:
        numbers[type_name] = numbers.get(type_name, 0) + 1
        n = numbers[type_name]
        t = data.types[type_name]
        order = t.orders[(n - 1) % len(t.orders)] if t.has_order else None
        cid = f"{_slug(type_name)}-{colour + '-' if colour else ''}{n}"
        cards[cid] = Card(cid, type_name, colour, order)
        return cid

    personal_sets: list[list[str]] = []
    common: list[str] = []
    for box_set in basic_sets:
        counts = {name: n for name, n in data.counts.items() if not data.types[name].experienced}
        for removal in (
            (data.three_player_removals if box_set in ("3", "3-5") else {}),
            (data.five_player_removals if box_set == "3-5" else {}),
        ):
            for name, n in removal.items():
                counts[name] = counts.get(name, 0) - n
        n_sets = counts.get("Depot", 0)
        piles = []
        colours = list(data.colours)
        for missing in colours:
            piles.append([new_card("Mine", c) for c in colours if c != missing])
        rng.shuffle(piles)
        generators = [new_card("Generator") for _ in range(2 * n_sets)]
        depots = [new_card("Depot") for _ in range(n_sets)]
        rng.shuffle(depots)
        for i in range(min(n_sets, len(piles))):
            personal_sets.append(piles[i] + generators[2 * i : 2 * i + 2] + [depots[i]])
        for name, n in counts.items():
            t = data.types[name]
            if t.level == 1:
                continue
            box_copies = data.counts[name]
            coloured = name in data.coloured_types
            copies = [
                new_card(name, data.colours[i % len(data.colours)] if coloured else "")
                for i in range(box_copies)
            ]
            common.extend(rng.sample(copies, max(0, n)))
    if experienced:
        for box_set in exp_sets:
            for name, n in data.counts.items():
                if not data.types[name].experienced:
                    continue
                keep = data.three_player_experienced.get(name, 0) if box_set in ("3", "3-5") else n
                common.extend(new_card(name) for _ in range(keep))
    if len(personal_sets) < len(names):
        raise SetupError(text("The card data does not give every player a personal technology stack"))
    rng.shuffle(personal_sets)
    stack2 = [c for c in common if cards[c].type in data.types and data.types[cards[c].type].level == 2]
    stack3 = [c for c in common if data.types[cards[c].type].level == 3]
    rng.shuffle(stack2)
    rng.shuffle(stack3)

    starts = dict(starts or {})
    unknown = set(starts) - set(names)
    if unknown:
        raise SetupError(text("{player} does not play in this game", player=sorted(unknown)[0]))
    state_players = []
    for seat, name in enumerate(names):
        own = personal_sets[seat]
        start = starts.get(name, Start())
        if start.side not in ("left", "right"):
            raise SetupError(text("{player}: the Generator goes left or right of the planet", player=name))
        mines = [c for c in own if cards[c].type == "Mine"]
        mine = mines[0] if not start.mine else next((c for c in mines if cards[c].colour == start.mine), None)
        if mine is None:
            raise SetupError(
                text(
                    "{player} has no {colour} Mine in their personal stack",
                    player=name,
                    colour=colour_text(start.mine),
                )
            )
        gen = next(c for c in own if cards[c].type == "Generator")
        side = LEFT if start.side == "left" else RIGHT
        anchor = -2 if side == LEFT else 2
        x = anchor if start.x is None else start.x
        if x not in (anchor, anchor + 1):
            raise SetupError(
                text(
                    "{player}: the first Mine must stand on a power connection of the Generator", player=name
                )
            )
        plants: list[tuple[str, ...]] = [(), ()]
        plants[side] = (gen,)
        built = (BuiltCard(mine, x, frozenset({("action", x), ("order", x)})),)
        state_players.append(
            PlayerState(
                name=name,
                seat=seat,
                stack=tuple(c for c in own if c not in (mine, gen)),
                plants=(plants[0], plants[1]),
                built=built,
                timers=tuple(Timer(i) for i in range(data.timers_per_player)),
            )
        )
    ships = [Ship(name, name, 2 * seat) for seat, name in enumerate(names)]
    order_cards: dict[str, OrderSpec] = {}
    order_stack: list[str] = []
    neutral = []
    if experienced:
        ships.extend(Ship(NEUTRAL_SHIP_IDS[b], None) for b in range(min(boxes, len(NEUTRAL_SHIP_IDS))))
        for b in range(boxes):
            for i, spec in enumerate(data.neutral_orders, start=1):
                oid = f"gizzi-{b * len(data.neutral_orders) + i}"
                order_cards[oid] = spec
                order_stack.append(oid)
        rng.shuffle(order_stack)
    for seat in range(len(names)):
        top = order_stack.pop(0) if order_stack else None
        neutral.append(NeutralPlanet(2 * seat + 1, top))
    timer_pool = data.timers * boxes - data.timers_per_player * len(names)
    return GameState(
        data=data,
        cards=cards,
        players=tuple(state_players),
        ships=tuple(ships),
        stack2=tuple(stack2),
        stack3=tuple(stack3),
        neutral=tuple(neutral),
        order_cards=order_cards,
        order_stack=tuple(order_stack),
        pool=Goods.of({c: data.goods_per_colour * boxes for c in data.colours}),
        attack_pool=data.attack_markers * boxes if experienced else 0,
        timer_pool=max(0, timer_pool),
        experienced=experienced,
    )


# =====================================================================================
# queries
# =====================================================================================


def final_score(state: GameState) -> FinalScore:
    """The score of the satisfied orders, by the same function as ``companion score`` (rulebook 4)."""
    return score_orders(state.names, state.satisfied)


def is_legal(state: GameState, action: Action) -> bool:
    """True when ``apply`` would accept the action."""
    return apply(state, action).ok


def planning_capacity(state: GameState, player: PlayerState) -> int:
    """Planning area size: 2, plus 2 per TechCenter not built over (3.1, 5.1a)."""
    bonus = sum(state.card_type(b.card).planning_bonus for b in player.built if not b.covered)
    return state.data.planning_area + bonus


def timer_limit(state: GameState, player: PlayerState) -> int:
    """Timers a player may use: 2, plus 1 per Robot Factory not built over (2, 5.1b)."""
    extra = sum(state.card_type(b.card).extra_timers for b in player.built if not b.covered)
    return min(len(player.timers), state.data.timers_per_player + extra)


def energised_units(state: GameState, player: PlayerState) -> frozenset[int]:
    """Action-row units supplied with power by the top power plant on each side (3.2.2)."""
    units: set[int] = set()
    for side, stack in enumerate(player.plants):
        if not stack:
            continue
        own, inner, outer = state.data.power[state.cards[stack[-1]].type]
        if side == LEFT:
            units.update(range(-2, -2 + own))
            units.update(range(0, inner))
            units.update(range(-2 - outer, -2))
        else:
            units.update(range(4 - own, 4))
            units.update(range(2 - inner, 2))
            units.update(range(4, 4 + outer))
    return frozenset(units)


def footprint(card_type: CardType, x: int) -> frozenset[tuple[str, int]]:
    """Cells a card covers at unit ``x``: upright in both rows, or across two action units (3.2.2b-d)."""
    if card_type.layout == "across":
        return frozenset({("action", x), ("action", x + 1)})
    return frozenset({("action", x), ("order", x)})


def _occupied(player: PlayerState) -> set[tuple[str, int]]:
    cells: set[tuple[str, int]] = {("planet", u) for u in PLANET_UNITS}
    for side, stack in enumerate(player.plants):
        if stack:
            a = -2 if side == LEFT else 2
            cells |= {("planet", a), ("planet", a + 1)}
    for b in player.built:
        cells |= b.cells
    return cells


def _space_in_use(state: GameState, space: tuple[str, str]) -> bool:
    """True when an active or usable timer stands on this timer space.

    A sabotaged timer has been set aside (rulebook 5.1d), so it no longer takes up a space.
    """
    for p in state.players:
        for t in p.timers:
            if t.status is TimerStatus.INACTIVE or t.job is None or t.sabotaged_by is not None:
                continue
            if _space_of(t.job, p.name) == space:
                return True
    return False


def _space_of(job: Job, player: str) -> tuple[str, str]:
    """The timer space a job occupies: the player's planet, a card, or a spaceship (3.2)."""
    if isinstance(job, RaiseTechLevel):
        return ("planet", player)
    if isinstance(job, (BuildCard, DiscardCard)):
        return ("planning", job.card)
    if isinstance(job, UseCard):
        return ("card", job.card)
    return ("ship", job.ship)


def site_problem(state: GameState, player: PlayerState, card_id: str, x: int) -> Text | None:
    """Why ``card_id`` cannot be built at unit ``x`` of the player's planet, or None (3.2.2, 5.1e)."""
    refused = site_refusal(state, player, card_id, x)
    return refused.reason if refused is not None else None


def site_refusal(state: GameState, player: PlayerState, card_id: str, x: int) -> Rejected | None:
    """The refusal of building ``card_id`` at unit ``x``, with its rule, or None when the site is good."""
    t = state.card_type(card_id)
    card = type_text(t.name)
    if t.layout == "plant":
        side = PLANT_SITES.get(x)
        if side is None:
            return _no(
                text("A power plant is built directly left (unit -2) or right (unit 2) of the planet"),
                R_BUILD,
            )
        stack = player.plants[side]
        top = state.cards[stack[-1]].type if stack else ""
        if not t.on:
            if not stack:
                return None
            return _no(
                text("There is already a {card} on that side of the planet", card=type_text(top)), R_BUILD
            )
        if top != t.on:
            return _no(
                text("A {card} may only be built on top of a {base}", card=card, base=type_text(t.on)),
                R_BUILD,
            )
        return None
    low, high = state.data.x_range
    cells = footprint(t, x)
    if any(not low <= u <= high for _, u in cells):
        return _no(text("Build sites run from unit {low} to unit {high}", low=low, high=high), R_BUILD)
    power = energised_units(state, player)
    if t.connections == 1 and x not in power:
        return _no(
            text("A card with one power connection must stand on a connection supplied by a power plant"),
            R_BUILD,
        )
    if t.connections == 2 and not {x, x + 1} <= power:
        return _no(
            text("A card with two power connections needs both connections supplied by power plants"), R_BUILD
        )
    if t.connections == 0:
        occupied = _occupied(player) - cells
        rows = ("planet", "action", "order")
        neighbours = set()
        for row, u in cells:
            r = rows.index(row)
            neighbours |= {(row, u - 1), (row, u + 1)}
            if r > 0:
                neighbours.add((rows[r - 1], u))
            if r < 2:
                neighbours.add((rows[r + 1], u))
        if not (neighbours - cells) & occupied:
            return _no(
                text("A card without power connection must touch another card with at least one side"),
                R_BUILD,
            )
    for b in player.built:
        overlap = b.cells & cells
        if not overlap:
            continue
        under = type_text(state.cards[b.card].type)
        if any(row == "order" for row, _ in overlap):
            return _no(
                text("Cards may only be built over other cards in the action row, never in the order row"),
                R_BUILD,
            )
        if b.blocked_by is not None:
            return _no(
                text(
                    "The card {card} is blocked by an Interstellar Rocket and cannot be built over",
                    card=under,
                ),
                R_ROCKET,
            )
        if _space_in_use(state, ("card", b.card)):
            return _no(
                text("A timer stands on the card {card}; it cannot be built over now", card=under), R_BUILD
            )
    return None


def _order_owner(state: GameState, order_id: str) -> str | None:
    for p in state.players:
        if p.built_card(order_id) is not None:
            return p.name
    return None


def _holder_place(state: GameState, holder: Holder) -> tuple[int | None, Text | None]:
    """(orbital field, problem) of a goods holder."""
    if isinstance(holder, InShip):
        ship = state.ship(holder.ship)
        if ship is None:
            return None, text("There is no spaceship {ship}", ship=str(holder.ship))
        if ship.field is None:
            return None, text("That spaceship is in flight and not at a planet")
        return ship.field, None
    if isinstance(holder, InDepot):
        p = state.player(holder.player)
        if p is None:
            return None, text("{player} does not play in this game", player=str(holder.player))
        if _depot(state, p) is None:
            return None, text("{player} has no Depot built on the planet", player=p.name)
        return state.planet_field(p.name), None
    if isinstance(holder, OnProbe):
        p = state.player(holder.player)
        b = p.built_card(holder.card) if p else None
        if p is None or b is None or state.card_type(b.card).kind != "transport" or b.covered:
            return None, text("That is not a Transport Probe in use")
        if _space_in_use(state, ("card", b.card)):
            return None, text("A Transport Probe stores goods only while no timer stands on it")
        return state.planet_field(p.name), None
    if isinstance(holder, AtNeutralPlanet):
        if not state.experienced:
            return None, text("Goods are left at neutral planets only with the rules for experienced players")
        if state.neutral_at(holder.field) is None:
            return None, text("That orbital field is not a neutral planet")
        return holder.field, None
    return None, text("Unknown place for goods")


def _depot(state: GameState, player: PlayerState) -> BuiltCard | None:
    return next(
        (b for b in player.built if state.card_type(b.card).kind == "storage" and not b.covered), None
    )


def _holder_goods(state: GameState, holder: Holder) -> Goods:
    if isinstance(holder, InShip):
        s = state.ship(holder.ship)
        return s.cargo if s else Goods()
    if isinstance(holder, InDepot):
        p = state.player(holder.player)
        d = _depot(state, p) if p else None
        return d.stored if d else Goods()
    if isinstance(holder, OnProbe):
        p = state.player(holder.player)
        b = p.built_card(holder.card) if p else None
        return b.stored if b else Goods()
    n = state.neutral_at(holder.field)
    return n.goods if n else Goods()


def _holder_room(state: GameState, holder: Holder) -> int | None:
    """Free room for goods (None = no limit)."""
    if isinstance(holder, InShip):
        return state.data.cargo_limit - _holder_goods(state, holder).total
    if isinstance(holder, InDepot):
        p = state.player(holder.player)
        d = _depot(state, p) if p else None
        if d is None:
            return None
        cap = state.card_type(d.card).capacity
        return None if cap is None else cap - d.stored.total
    if isinstance(holder, OnProbe):
        p = state.player(holder.player)
        b = p.built_card(holder.card) if p else None
        cap = state.card_type(b.card).capacity if b else 0
        return None if cap is None else cap - _holder_goods(state, holder).total
    return None


def _set_goods(state: GameState, holder: Holder, goods: Goods) -> GameState:
    if isinstance(holder, InShip):
        ship = state.ship(holder.ship)
        assert ship is not None
        return state.with_ship(replace(ship, cargo=goods))
    if isinstance(holder, (InDepot, OnProbe)):
        p = state.player(holder.player)
        assert p is not None
        if isinstance(holder, InDepot):
            depot = _depot(state, p)
            assert depot is not None  # goods are only moved into or out of an existing Depot
            target = depot.card
        else:
            target = holder.card
        built = tuple(replace(b, stored=goods) if b.card == target else b for b in p.built)
        return state.with_player(replace(p, built=built))
    planets = tuple(replace(n, goods=goods) if n.field == holder.field else n for n in state.neutral)
    return replace(state, neutral=planets)


def _controls_holder(state: GameState, player: str, holder: Holder) -> bool:
    if isinstance(holder, InShip):
        ship = state.ship(holder.ship)
        return ship is not None and ship.controller == player
    if isinstance(holder, (InDepot, OnProbe)):
        return holder.player == player
    return False


# =====================================================================================
# apply
# =====================================================================================


def _no(reason: Text, rule: Text) -> Rejected:
    return Rejected(reason, rule)


def _number(timer: object) -> int | str:
    """A timer as players number them (1, 2, 3; the engine counts from 0)."""
    return timer + 1 if isinstance(timer, int) and not isinstance(timer, bool) else str(timer)


def apply(state: GameState, action: Action) -> Result:
    """Decide an action: the new state and events, or a rejection naming the rule."""
    handler = _HANDLERS.get(type(action))
    if handler is None:
        return _no(text("Unknown action {action}", action=type(action).__name__), R_JOB)
    return handler(state, action)


def _running(state: GameState) -> Rejected | None:
    if state.phase is not Phase.RUNNING:
        return _no(text("The game has ended; only timers that are still running complete"), R_END)
    return None


def _known(state: GameState, name: str) -> tuple[PlayerState | None, Rejected | None]:
    p = state.player(name) if isinstance(name, str) else None
    if p is None:
        return None, _no(text("{player} does not play in this game", player=str(name)), R_SETUP)
    return p, None


# --- free actions with cards ----------------------------------------------------------


def _play_card(state: GameState, a: PlayCard) -> Result:
    """Put a card from the personal stack into a free space of the planning area (3.1)."""
    if (r := _running(state)) is not None:
        return r
    p, r = _known(state, a.player)
    if r is not None:
        return r
    assert p is not None
    if a.card not in p.stack:
        return _no(text("That card is not in your personal technology stack"), R_PLAY)
    if len(p.planning) >= planning_capacity(state, p):
        return _no(text("Your planning area has no free space"), R_PLAY)
    p = replace(p, stack=tuple(c for c in p.stack if c != a.card), planning=p.planning + (a.card,))
    return Accepted(state.with_player(p), (Event("CardPlanned", p.name, {"card": a.card}),))


def _draw(state: GameState, a: DrawTechCards) -> Result:
    """Look at the top two cards of a common stack the technology level allows (3.2.1)."""
    if (r := _running(state)) is not None:
        return r
    p, r = _known(state, a.player)
    if r is not None:
        return r
    assert p is not None
    if a.level not in (2, 3):
        return _no(text("Cards are drawn from the common TechLevel 2 or TechLevel 3 stack"), R_TECH)
    if p.tech_level < a.level:
        return _no(
            text("Drawing from the TechLevel {level} stack needs technology level {level}", level=a.level),
            R_TECH,
        )
    if p.pending_draw is not None:
        return _no(text("Keep one of the two cards you have drawn first"), R_TECH)
    if len(p.planning) >= planning_capacity(state, p):
        return _no(text("Your planning area has no free space"), R_PLAY)
    stack = state.stack2 if a.level == 2 else state.stack3
    if not stack:
        return _no(text("The TechLevel {level} stack is empty", level=a.level), R_TECH)
    drawn, rest = stack[:2], stack[2:]
    state = _with_stack(state, a.level, rest)
    state = state.with_player(replace(p, pending_draw=(a.level, drawn)))
    return Accepted(state, (Event("CardsDrawn", p.name, {"level": a.level, "cards": list(drawn)}),))


def _keep(state: GameState, a: KeepDrawnCard) -> Result:
    """Keep one drawn card in the planning area; the other goes under its stack (3.2.1)."""
    if (r := _running(state)) is not None:
        return r
    p, r = _known(state, a.player)
    if r is not None:
        return r
    assert p is not None
    if p.pending_draw is None:
        return _no(text("You have not drawn any cards to choose from"), R_TECH)
    level, drawn = p.pending_draw
    if a.card not in drawn:
        return _no(text("Keep one of the two cards you drew"), R_TECH)
    if len(p.planning) >= planning_capacity(state, p):
        return _no(text("Your planning area has no free space"), R_PLAY)
    back = tuple(c for c in drawn if c != a.card)
    stack = (state.stack2 if level == 2 else state.stack3) + back
    state = _with_stack(state, level, stack)
    state = state.with_player(replace(p, pending_draw=None, planning=p.planning + (a.card,)))
    return Accepted(state, (Event("CardKept", p.name, {"card": a.card, "returned": list(back)}),))


def _with_stack(state: GameState, level: int, stack: tuple[str, ...]) -> GameState:
    """The state with the common TechLevel ``level`` stack (2 or 3) replaced by ``stack``."""
    if level == 2:
        return replace(state, stack2=stack)
    if level == 3:
        return replace(state, stack3=stack)
    raise ValueError(f"there is no common TechLevel {level} stack")


def _card_busy(state: GameState, card: str) -> bool:
    return _space_in_use(state, ("planning", card))


def _give(state: GameState, a: GiveCard) -> Result:
    """Give a planned card to a player with free planning space (5.2)."""
    if (r := _running(state)) is not None:
        return r
    if not state.experienced:
        return _no(text("Cards change hands only with the rules for experienced players"), R_TRADE)
    p, r = _known(state, a.player)
    if r is not None:
        return r
    q, r = _known(state, a.receiver)
    if r is not None:
        return r
    assert p is not None and q is not None
    if p.name == q.name:
        return _no(text("Give the card to another player"), R_TRADE)
    if a.card not in p.planning:
        return _no(text("Only cards in your planning area can be given away"), R_TRADE)
    if _card_busy(state, a.card):
        return _no(text("A timer stands on that card"), R_TRADE)
    if len(q.planning) >= planning_capacity(state, q):
        return _no(text("{player} has no free space in the planning area", player=q.name), R_TRADE)
    state = state.with_player(replace(p, planning=tuple(c for c in p.planning if c != a.card)))
    state = state.with_player(replace(q, planning=q.planning + (a.card,)))
    return Accepted(state, (Event("CardGiven", p.name, {"card": a.card, "to": q.name}),))


def _trade(state: GameState, a: TradeCards) -> Result:
    """Swap planned cards by agreement (5.2)."""
    if (r := _running(state)) is not None:
        return r
    if not state.experienced:
        return _no(text("Cards change hands only with the rules for experienced players"), R_TRADE)
    p, r = _known(state, a.player)
    if r is not None:
        return r
    q, r = _known(state, a.other)
    if r is not None:
        return r
    assert p is not None and q is not None
    if p.name == q.name:
        return _no(text("Trade with another player"), R_TRADE)
    if a.card not in p.planning or a.other_card not in q.planning:
        return _no(text("Only cards in the two planning areas can be traded"), R_TRADE)
    if _card_busy(state, a.card) or _card_busy(state, a.other_card):
        return _no(text("A timer stands on one of the cards"), R_TRADE)
    state = state.with_player(
        replace(p, planning=tuple(a.other_card if c == a.card else c for c in p.planning))
    )
    state = state.with_player(
        replace(q, planning=tuple(a.card if c == a.other_card else c for c in q.planning))
    )
    return Accepted(
        state, (Event("CardsTraded", p.name, {"gave": a.card, "got": a.other_card, "with": q.name}),)
    )


# --- jobs ---------------------------------------------------------------------------


def _check_use(state: GameState, p: PlayerState, job: UseCard) -> tuple[bool, Rejected | None]:
    """(clears_block, problem) for a timer on a card's timer space (3.2.3, 5.1)."""
    b = p.built_card(job.card)
    if b is None:
        return False, _no(text("A timer can only be used on a card in your action row"), R_USE)
    t = state.card_type(b.card)
    if b.covered:
        return False, _no(
            text(
                "The card {card} has been built over; its effect can no longer be used",
                card=type_text(t.name),
            ),
            R_BUILD,
        )
    if not t.timer:
        return False, _no(text("The card {card} has no timer space", card=type_text(t.name)), R_USE)
    if b.blocked_by is not None:
        return True, None
    colours = state.data.colours
    if t.kind == "mine" and t.colour == "any" and job.colour not in colours:
        return False, _no(
            text(
                "Choose the colour the card {card} produces: {colours}",
                card=type_text(t.name),
                colours=colours_text(colours),
            ),
            R_USE,
        )
    if t.kind == "converter":
        pairs = job.exchanges if isinstance(job.exchanges, tuple) else ()
        if not all(isinstance(e, tuple) and len(e) == 2 for e in pairs):
            return False, _no(text("Name each exchange as a pair of colours (give, take)"), R_USE)
        if not 1 <= len(pairs) <= t.exchanges:
            return False, _no(
                text("The card {card} exchanges 1 to {most} goods", card=type_text(t.name), most=t.exchanges),
                R_USE,
            )
        if any(g not in colours or k not in colours for g, k in job.exchanges):
            return False, _no(text("Name the goods colours to give and to take"), R_USE)
    if t.kind in ("sabotage", "rocket") and b.attack_markers >= state.data.attack_markers_per_card:
        rule = R_SABOTAGE if t.kind == "sabotage" else R_ROCKET
        return False, _no(
            text(
                "The card {card} already holds {count} attack marker",
                "The card {card} already holds {count} attack markers",
                card=type_text(t.name),
                count=state.data.attack_markers_per_card,
            ),
            rule,
        )
    return False, None


def _start_job(state: GameState, a: StartJob) -> Result:
    """Flip an inactive timer onto a free timer space with a legal job (3.2, 3.2.1-3.2.4, 5.1)."""
    if state.phase is not Phase.RUNNING:
        return _no(text("The game has ended; no new jobs can be assigned"), R_END)
    p, r = _known(state, a.player)
    if r is not None:
        return r
    assert p is not None
    timer = p.timer(a.timer) if isinstance(a.timer, int) else None
    if timer is None or a.timer >= timer_limit(state, p):
        return _no(text("You have no timer number {number}", number=_number(a.timer)), R_JOB)
    if timer.status is not TimerStatus.INACTIVE:
        return _no(
            text(
                "Timer {number} is {status}; only an inactive timer takes a job",
                number=_number(a.timer),
                status=STATUS_TEXT[timer.status],
            ),
            R_JOB,
        )
    job = a.job
    if not isinstance(job, (RaiseTechLevel, BuildCard, UseCard, MoveShip, DiscardCard)):
        return _no(text("Unknown job"), R_JOB)
    if _space_in_use(state, _space_of(job, p.name)):
        return _no(text("Another timer already stands on that timer space"), R_JOB)
    clears_block = False
    origin = None
    events: list[Event] = []
    if isinstance(job, RaiseTechLevel):
        if p.tech_level >= state.data.max_tech_level:
            return _no(
                text(
                    "The planet is already at the highest technology level {level}",
                    level=state.data.max_tech_level,
                ),
                R_TECH,
            )
    elif isinstance(job, BuildCard):
        if job.card not in p.planning:
            return _no(text("Only cards in your planning area can be built"), R_BUILD)
        if job.x is not None and (not isinstance(job.x, int) or isinstance(job.x, bool)):
            return _no(text("A build site is a whole-number unit beside or below the planet"), R_BUILD)
        if job.x is not None:
            refused = site_refusal(state, p, job.card, job.x)
            if refused is not None:
                return refused
    elif isinstance(job, DiscardCard):
        if not state.experienced:
            return _no(text("Discarding from the planning area is a rule for experienced players"), R_DISCARD)
        if job.card not in p.planning:
            return _no(text("Only cards in your planning area can be discarded"), R_DISCARD)
    elif isinstance(job, UseCard):
        clears_block, r = _check_use(state, p, job)
        if r is not None:
            return r
    else:
        ship = state.ship(job.ship)
        if ship is None:
            return _no(text("There is no spaceship {ship}", ship=str(job.ship)), R_MOVE)
        if ship.controller != p.name:
            rule = R_CARDS if ship.id in NEUTRAL_SHIP_IDS else R_MOVE
            return _no(text("You can only move a spaceship you control"), rule)
        if ship.field is None:
            return _no(text("That spaceship is in flight"), R_MOVE)
        if not isinstance(job.to, int) or not 0 <= job.to < state.ring_size:
            return _no(text("Orbital fields are numbered 0 to {last}", last=state.ring_size - 1), R_MOVE)
        if job.to == ship.field:
            return _no(text("The spaceship is already at that orbital field"), R_MOVE)
        distance = abs(job.to - ship.field) % state.ring_size
        distance = min(distance, state.ring_size - distance)
        if distance != 1 and ship.cargo:
            return _no(
                text("A spaceship with goods may only fly to a directly adjacent orbital field"), R_MOVE
            )
        origin = ship.field
        state = state.with_ship(replace(ship, field=None, destination=job.to))
        events.append(Event("ShipLaunched", p.name, {"ship": ship.id, "from": origin, "to": job.to}))
    timers = tuple(
        replace(
            t, status=TimerStatus.ACTIVE, job=job, clears_block=clears_block, origin=origin, sabotaged_by=None
        )
        if t.index == a.timer
        else t
        for t in p.timers
    )
    current = state.player(p.name)
    assert current is not None
    state = state.with_player(replace(current, timers=timers))
    events.insert(0, Event("JobStarted", p.name, {"timer": a.timer, "job": type(job).__name__}))
    return Accepted(state, tuple(events))


def _set_timer(state: GameState, name: str, timer: Timer) -> GameState:
    p = state.player(name)
    assert p is not None
    return state.with_player(
        replace(p, timers=tuple(timer if t.index == timer.index else t for t in p.timers))
    )


def _timer_ran_out(state: GameState, a: TimerRanOut) -> Result:
    """Apply a job when its timer runs out, unless sabotaged or clearing a rocket block (3.2, 5.1d-e)."""
    p, r = _known(state, a.player)
    if r is not None:
        return r
    assert p is not None
    if state.phase is Phase.OVER:
        return _no(text("The game is over"), R_END)
    timer = p.timer(a.timer) if isinstance(a.timer, int) else None
    if timer is None:
        return _no(
            text("{player} has no timer number {number}", player=p.name, number=_number(a.timer)), R_JOB
        )
    if timer.status is not TimerStatus.ACTIVE or timer.job is None:
        return _no(text("Timer {number} is not running", number=_number(a.timer)), R_JOB)
    job = timer.job
    events: list[Event] = []
    done = replace(
        timer, status=TimerStatus.INACTIVE, job=None, sabotaged_by=None, clears_block=False, origin=None
    )
    if timer.sabotaged_by is not None:
        state = replace(state, attack_pool=state.attack_pool + 1)
        state = _set_timer(state, p.name, done)
        events.append(
            Event(
                "JobVoided", p.name, {"timer": a.timer, "by": timer.sabotaged_by, "job": type(job).__name__}
            )
        )
    elif timer.clears_block and isinstance(job, UseCard):
        q = state.player(p.name)
        assert q is not None
        built = tuple(replace(b, blocked_by=None) if b.card == job.card else b for b in q.built)
        state = state.with_player(replace(q, built=built))
        state = replace(state, attack_pool=state.attack_pool + 1)
        state = _set_timer(state, p.name, done)
        events.append(Event("BlockCleared", p.name, {"card": job.card}))
    else:
        state = _set_timer(state, p.name, done)
        state, more, keep_usable = _complete(state, p.name, job)
        events.extend(more)
        if keep_usable:
            state = _set_timer(state, p.name, replace(timer, status=TimerStatus.USABLE))
    events.insert(0, Event("TimerRanOut", p.name, {"timer": a.timer}))
    state = _retire_timers(state, p.name)
    state, more = _check_finished(state)
    events.extend(more)
    return Accepted(state, tuple(events))


def _complete(state: GameState, name: str, job: Job) -> tuple[GameState, list[Event], bool]:
    """Apply the effect of a job whose timer ran out; True when the timer stays usable."""
    p = state.player(name)
    assert p is not None
    if isinstance(job, RaiseTechLevel):
        level = min(p.tech_level + 1, state.data.max_tech_level)
        return (
            state.with_player(replace(p, tech_level=level)),
            [Event("TechLevelRaised", name, {"level": level})],
            False,
        )
    if isinstance(job, BuildCard):
        if job.card not in p.planning:
            return state, [Event("JobFizzled", name, {"card": job.card})], False
        if job.x is not None and site_problem(state, p, job.card, job.x) is None:
            state, events = _place(state, name, job.card, job.x)
            return state, events, False
        return state, [Event("BuildWaiting", name, {"card": job.card})], True
    if isinstance(job, DiscardCard):
        if job.card not in p.planning:
            return state, [], False
        state = state.with_player(replace(p, planning=tuple(c for c in p.planning if c != job.card)))
        return _under_stack(state, name, job.card), [Event("CardDiscarded", name, {"card": job.card})], False
    if isinstance(job, MoveShip):
        ship = state.ship(job.ship)
        if ship is None or ship.destination is None:
            return state, [], False
        state = state.with_ship(replace(ship, field=ship.destination, destination=None))
        return state, [Event("ShipLanded", name, {"ship": ship.id, "field": ship.destination})], False
    return _use(state, name, job)


def _under_stack(state: GameState, name: str, card: str) -> GameState:
    """Put a card under the stack it came from (5.1, discarding)."""
    level = state.card_type(card).level
    if level == 2:
        return replace(state, stack2=state.stack2 + (card,))
    if level == 3:
        return replace(state, stack3=state.stack3 + (card,))
    p = state.player(name)
    assert p is not None
    return state.with_player(replace(p, stack=p.stack + (card,)))


def _deliver(
    state: GameState, name: str, goods: Goods, first: str
) -> tuple[GameState, dict[str, int], Goods]:
    """Put goods from the pool into a Depot or a ship at the owner's planet; the rest is lost (3.2.3a)."""
    p = state.player(name)
    assert p is not None
    planet = state.planet_field(name)
    holders: list[InShip | InDepot] = []
    ships_here = [s for s in state.ships if s.field == planet]
    if first == "depot" and _depot(state, p):
        holders.append(InDepot(name))
    elif first:
        holders.extend(InShip(s.id) for s in ships_here if s.id == first)
    if _depot(state, p) and InDepot(name) not in holders:
        holders.append(InDepot(name))
    holders.extend(InShip(s.id) for s in ships_here if s.controller == name and InShip(s.id) not in holders)
    placed: dict[str, int] = {}
    left = goods
    for h in holders:
        room = _holder_room(state, h)
        take: dict[str, int] = {}
        for colour, n in left.items:
            k = n if room is None else min(n, room - sum(take.values()))
            if k > 0:
                take[colour] = k
        if not take:
            continue
        bag = Goods.of(take)
        state = _set_goods(state, h, _holder_goods(state, h) + bag)
        state = replace(state, pool=state.pool - bag)
        left = left - bag
        label = "depot" if isinstance(h, InDepot) else h.ship
        placed[label] = placed.get(label, 0) + bag.total
    return state, placed, left


def _use(state: GameState, name: str, job: UseCard) -> tuple[GameState, list[Event], bool]:
    """The effect of a card's timer space (3.2.3, 5.1d-f)."""
    p = state.player(name)
    assert p is not None
    b = p.built_card(job.card)
    if b is None or b.covered:
        return state, [Event("JobFizzled", name, {"card": job.card})], False
    t = state.card_type(b.card)
    if t.kind == "mine":
        colour = state.cards[b.card].colour if t.colour == "card" else job.colour
        n = min(t.produces, state.pool.count(colour))
        state, placed, lost = _deliver(state, name, Goods.of({colour: n}), job.to)
        details = {"card": b.card, "colour": colour, "placed": placed, "lost": lost.total + t.produces - n}
        return state, [Event("GoodsProduced", name, details)], False
    if t.kind == "converter":
        return _convert(state, name, t, job)
    if t.kind in ("sabotage", "rocket"):
        if state.attack_pool <= 0 or b.attack_markers >= state.data.attack_markers_per_card:
            return (
                state,
                [Event("JobFizzled", name, {"card": b.card, "why": "no attack marker left in the pool"})],
                False,
            )
        built = tuple(
            replace(c, attack_markers=c.attack_markers + 1) if c.card == b.card else c for c in p.built
        )
        state = replace(state.with_player(replace(p, built=built)), attack_pool=state.attack_pool - 1)
        return (
            state,
            [Event("AttackMarkerLoaded", name, {"card": b.card, "markers": b.attack_markers + 1})],
            False,
        )
    if t.kind == "transport":
        ship_id = job.ship or name
        ship = state.ship(ship_id)
        if ship is None or ship.controller != name:
            return state, [Event("JobFizzled", name, {"card": b.card, "why": "no spaceship of yours"})], False
        room = state.data.cargo_limit - ship.cargo.total
        take: dict[str, int] = {}
        for colour, n in b.stored.items:
            k = min(n, room - sum(take.values()))
            if k > 0:
                take[colour] = k
        bag = Goods.of(take)
        state = _set_goods(state, OnProbe(name, b.card), b.stored - bag)
        state = _set_goods(state, InShip(ship.id), ship.cargo + bag)
        return (
            state,
            [Event("GoodsSent", name, {"card": b.card, "ship": ship.id, "goods": bag.as_dict()})],
            False,
        )
    return state, [Event("JobFizzled", name, {"card": b.card})], False


def _convert(state: GameState, name: str, t: CardType, job: UseCard) -> tuple[GameState, list[Event], bool]:
    """Exchange goods in the Depot or the own spaceship at the planet with the pool (3.2.3b)."""
    planet = state.planet_field(name)
    p = state.player(name)
    assert p is not None
    holder: Holder | None = None
    if job.source == "depot" or (not job.source and _depot(state, p) is not None):
        holder = InDepot(name) if _depot(state, p) is not None else None
    else:
        ship = state.ship(job.source or name)
        if ship is not None and ship.controller == name and ship.field == planet:
            holder = InShip(ship.id)
    done = []
    for give, take in job.exchanges[: t.exchanges]:
        if holder is None:
            break
        bag = _holder_goods(state, holder)
        if bag.count(give) < 1:
            continue
        pool = state.pool + Goods.of({give: 1})
        if pool.count(take) < 1:
            continue
        state = _set_goods(state, holder, bag - Goods.of({give: 1}) + Goods.of({take: 1}))
        state = replace(state, pool=pool - Goods.of({take: 1}))
        done.append([give, take])
    return state, [Event("GoodsConverted", name, {"exchanges": done})], False


def _place(state: GameState, name: str, card: str, x: int) -> tuple[GameState, list[Event]]:
    """Build a card at a valid site: cover what lies beneath, then its permanent effect (3.2.2, 5.1)."""
    p = state.player(name)
    assert p is not None
    t = state.card_type(card)
    events = [Event("CardBuilt", name, {"card": card, "x": x})]
    p = replace(p, planning=tuple(c for c in p.planning if c != card))
    if t.layout == "plant":
        side = PLANT_SITES[x]
        plants = list(p.plants)
        plants[side] = plants[side] + (card,)
        return state.with_player(replace(p, plants=(plants[0], plants[1]))), events
    cells = footprint(t, x)
    built = []
    for b in p.built:
        if b.cells & cells and not b.covered:
            events.append(Event("CardBuiltOver", name, {"card": b.card}))
            if b.stored:
                state = replace(state, pool=state.pool + b.stored)
                events.append(Event("GoodsLost", name, {"card": b.card, "goods": b.stored.as_dict()}))
            state = replace(state, attack_pool=state.attack_pool + b.attack_markers)
            b = replace(b, covered=True, stored=Goods(), attack_markers=0)
            if state.card_type(b.card).kind == "station":
                for s in state.ships:
                    if s.id in NEUTRAL_SHIP_IDS and s.controller == name:
                        state = state.with_ship(replace(s, controller=None))
                        break
        built.append(b)
    built.append(BuiltCard(card, x, cells))
    p = replace(p, built=tuple(built))
    state = state.with_player(p)
    if t.extra_timers and state.timer_pool > 0:
        n = min(t.extra_timers, state.timer_pool)
        p = replace(p, timers=p.timers + tuple(Timer(len(p.timers) + i) for i in range(n)))
        state = replace(state.with_player(p), timer_pool=state.timer_pool - n)
        events.append(Event("TimerAdded", name, {"timers": len(p.timers)}))
    if t.kind == "station":
        free = next((s for s in state.ships if s.id in NEUTRAL_SHIP_IDS and s.controller is None), None)
        if free is not None:
            at_planet = free.field is None and free.destination is None
            field = state.planet_field(name) if at_planet else free.field
            state = state.with_ship(replace(free, controller=name, field=field))
            events.append(Event("NeutralShipTaken", name, {"ship": free.id, "field": field}))
    state = _retire_timers(state, name)
    return state, events


def _retire_timers(state: GameState, name: str) -> GameState:
    """Give back timers a Robot Factory no longer provides once they are inactive (5.1b)."""
    p = state.player(name)
    assert p is not None
    limit = timer_limit(state, p)
    timers = list(p.timers)
    while (
        len(timers) > max(limit, state.data.timers_per_player) and timers[-1].status is TimerStatus.INACTIVE
    ):
        timers.pop()
        state = replace(state, timer_pool=state.timer_pool + 1)
    if len(timers) != len(p.timers):
        state = state.with_player(replace(p, timers=tuple(timers)))
    return state


def _place_built(state: GameState, a: PlaceBuiltCard) -> Result:
    """Put the card of a usable build timer on a valid build site; the timer becomes inactive (3.2.2)."""
    p, r = _known(state, a.player)
    if r is not None:
        return r
    assert p is not None
    timer = p.timer(a.timer) if isinstance(a.timer, int) else None
    if state.phase is Phase.OVER:
        return _no(text("The game is over"), R_END)
    if timer is None or timer.status is not TimerStatus.USABLE or not isinstance(timer.job, BuildCard):
        return _no(
            text("Timer {number} has no finished build waiting for a site", number=_number(a.timer)), R_BUILD
        )
    card = timer.job.card
    if not isinstance(a.x, int) or isinstance(a.x, bool):
        return _no(text("A build site is a whole-number unit beside or below the planet"), R_BUILD)
    if card not in p.planning:
        return _no(text("That card is no longer in your planning area"), R_BUILD)
    refused = site_refusal(state, p, card, a.x)
    if refused is not None:
        return refused
    state = _set_timer(state, p.name, replace(timer, status=TimerStatus.INACTIVE, job=None))
    state, events = _place(state, p.name, card, a.x)
    return Accepted(state, tuple(events))


def _abandon(state: GameState, a: AbandonJob) -> Result:
    """Give up a usable timer's job: the timer is inactive again, the card stays planned."""
    p, r = _known(state, a.player)
    if r is not None:
        return r
    assert p is not None
    timer = p.timer(a.timer) if isinstance(a.timer, int) else None
    if timer is None or timer.status is not TimerStatus.USABLE:
        return _no(
            text(
                "Timer {number} is not usable; only a finished job can be given up", number=_number(a.timer)
            ),
            R_JOB,
        )
    state = _set_timer(state, p.name, replace(timer, status=TimerStatus.INACTIVE, job=None))
    state = _retire_timers(state, p.name)
    return Accepted(state, (Event("JobAbandoned", p.name, {"timer": a.timer}),))


# --- goods and orders ---------------------------------------------------------------


def _valid_goods(state: GameState, goods: object) -> Rejected | None:
    if not isinstance(goods, Goods) or not goods:
        return _no(text("Name at least one good to move"), R_GOODS)
    if any(c not in state.data.colours for c, _ in goods.items):
        return _no(text("Goods come in {colours}", colours=colours_text(state.data.colours)), R_GOODS)
    return None


def _transfer(state: GameState, a: TransferGoods) -> Result:
    """Move goods between holders at the same planet, within their capacity (3.3, 5.1f, 5.3)."""
    if (r := _running(state)) is not None:
        return r
    p, r = _known(state, a.player)
    if r is not None:
        return r
    if (r := _valid_goods(state, a.goods)) is not None:
        return r
    if a.source == a.target:
        return _no(text("Goods must move between two different places"), R_GOODS)
    if not _controls_holder(state, a.player, a.source) and not isinstance(a.source, AtNeutralPlanet):
        return _no(
            text("You can only hand over goods from your own spaceship, Depot or Transport Probe"), R_GOODS
        )
    if isinstance(a.source, AtNeutralPlanet) and not (
        isinstance(a.target, InShip) and _controls_holder(state, a.player, a.target)
    ):
        return _no(
            text("Goods left at a neutral planet are collected by a spaceship that is there"), R_NEUTRAL
        )
    src_field, problem = _holder_place(state, a.source)
    if problem:
        return _no(problem, R_NEUTRAL if isinstance(a.source, AtNeutralPlanet) else R_GOODS)
    dst_field, problem = _holder_place(state, a.target)
    if problem:
        return _no(problem, R_NEUTRAL if isinstance(a.target, AtNeutralPlanet) else R_GOODS)
    if src_field != dst_field:
        return _no(
            text("Goods can only be exchanged between spaceships and Depots at the same planet"), R_GOODS
        )
    have = _holder_goods(state, a.source)
    if not have.contains(a.goods):
        return _no(text("Those goods are not there"), R_GOODS)
    room = _holder_room(state, a.target)
    if room is not None and a.goods.total > room:
        if isinstance(a.target, InShip):
            return _no(
                text(
                    "A spaceship holds at most {count} good",
                    "A spaceship holds at most {count} goods",
                    count=state.data.cargo_limit,
                ),
                R_GOODS,
            )
        if isinstance(a.target, OnProbe):
            return _no(
                text(
                    "A Transport Probe stores at most {count} good",
                    "A Transport Probe stores at most {count} goods",
                    count=room + _holder_goods(state, a.target).total,
                ),
                R_PROBE,
            )
        return _no(
            text(
                "The Depot has room for only {count} more good",
                "The Depot has room for only {count} more goods",
                count=room,
            ),
            R_GOODS,
        )
    state = _set_goods(state, a.source, have - a.goods)
    state = _set_goods(state, a.target, _holder_goods(state, a.target) + a.goods)
    return Accepted(state, (Event("GoodsTransferred", a.player, {"goods": a.goods.as_dict()}),))


def _return_goods(state: GameState, a: ReturnGoods) -> Result:
    """Put unwanted goods of one's own back into the common pool (3.2.4, 3.4)."""
    if (r := _running(state)) is not None:
        return r
    p, r = _known(state, a.player)
    if r is not None:
        return r
    if (r := _valid_goods(state, a.goods)) is not None:
        return r
    if not _controls_holder(state, a.player, a.source):
        return _no(
            text("You can only return goods from your own spaceship, Depot or Transport Probe"), R_GOODS
        )
    if not isinstance(a.source, InShip):
        _, problem = _holder_place(state, a.source)
        if problem:
            return _no(problem, R_GOODS)
    have = _holder_goods(state, a.source)
    if not have.contains(a.goods):
        return _no(text("Those goods are not there"), R_GOODS)
    state = _set_goods(state, a.source, have - a.goods)
    state = replace(state, pool=state.pool + a.goods)
    return Accepted(state, (Event("GoodsReturned", a.player, {"goods": a.goods.as_dict()}),))


def _able(state: GameState, field: int, wanted: Goods) -> set[str]:
    """Players with a spaceship at ``field`` carrying ``wanted`` (5.3 re-draw rule)."""
    return {
        s.controller
        for s in state.ships
        if s.field == field and s.controller is not None and s.cargo.contains(wanted)
    }


def _satisfy(state: GameState, a: SatisfyOrder) -> Result:
    """Deliver an order at another player's planet or a neutral planet (3.4, 4, 5.3)."""
    if (r := _running(state)) is not None:
        return r
    p, r = _known(state, a.player)
    if r is not None:
        return r
    assert p is not None
    if not isinstance(a.order, str):
        return _no(text("Name the order by the card it is printed on"), R_ORDER)
    ship = state.ship(a.ship)
    if ship is None or ship.controller != p.name:
        return _no(text("Deliver with a spaceship you control"), R_ORDER)
    if ship.field is None:
        return _no(text("The spaceship is in flight and not at a planet"), R_ORDER)
    if any(o.order == a.order for o in state.satisfied):
        return _no(text("That order has already been satisfied; each order only once"), R_ORDER)
    neutral = state.neutral_at(ship.field)
    if a.order in state.order_cards:
        if neutral is None or neutral.order != a.order:
            return _no(
                text("That order card is not face up at the neutral planet where your spaceship is"),
                R_NEUTRAL,
            )
        spec = state.order_cards[a.order]
        wanted = Goods.of(spec.goods_dict())
        if not ship.cargo.contains(wanted):
            return _no(text("Your spaceship does not carry the goods the order asks for"), R_ORDER)
        state = state.with_ship(replace(ship, cargo=ship.cargo - wanted))
        state = replace(state, pool=state.pool + wanted)
        state = state.with_player(replace(p, neutral_cards=p.neutral_cards + (a.order,)))
        state = replace(
            state, satisfied=state.satisfied + (SatisfiedOrder(a.order, p.name, None, spec.points),)
        )
        events = [
            Event("OrderSatisfied", p.name, {"order": a.order, "owner": None, "points": list(spec.points)})
        ]
        state, more = _reveal_neutral_order(state, ship.field)
        events.extend(more)
        return Accepted(state, tuple(events))
    owner = _order_owner(state, a.order)
    card = state.cards.get(a.order)
    if owner is None or card is None or card.order is None:
        return _no(text("There is no order of that name on a built card"), R_ORDER)
    if owner == p.name:
        return _no(text("Nobody may satisfy orders at their own planet"), R_ORDER)
    if ship.field != state.planet_field(owner):
        return _no(
            text("Your spaceship must be at {player}'s planet to satisfy that order", player=owner), R_ORDER
        )
    if p.markers_placed >= state.data.placeable_markers:
        return _no(text("You have no victory-point markers left to place"), R_END)
    wanted = Goods.of(card.order.goods_dict())
    if not ship.cargo.contains(wanted):
        return _no(text("Your spaceship does not carry the goods the order asks for"), R_ORDER)
    state = state.with_ship(replace(ship, cargo=ship.cargo - wanted))
    state = replace(state, pool=state.pool + wanted)
    p = replace(p, markers_placed=p.markers_placed + 1)
    state = state.with_player(p)
    state = replace(
        state, satisfied=state.satisfied + (SatisfiedOrder(a.order, p.name, owner, card.order.points),)
    )
    events = [
        Event(
            "OrderSatisfied",
            p.name,
            {
                "order": a.order,
                "owner": owner,
                "points": list(card.order.points),
                "markers": p.markers_placed,
            },
        )
    ]
    if p.markers_placed >= state.data.placeable_markers:
        state, more = _end(state, f"{p.name} placed their last victory-point marker")
        events.extend(more)
    return Accepted(state, tuple(events))


def _reveal_neutral_order(state: GameState, field: int) -> tuple[GameState, list[Event]]:
    """Turn up the next order card; re-draw while several players could satisfy it at once (5.3)."""
    stack = list(state.order_stack)
    events: list[Event] = []
    chosen: str | None = None
    for _ in range(len(stack)):
        card = stack.pop(0)
        if len(_able(state, field, Goods.of(state.order_cards[card].goods_dict()))) > 1:
            stack.append(card)
            events.append(Event("OrderRedrawn", None, {"order": card, "field": field}))
            chosen = card
            continue
        chosen = card
        break
    else:
        if chosen is not None:  # every card was contested: show the last one drawn
            stack.remove(chosen)
    planets = tuple(replace(n, order=chosen) if n.field == field else n for n in state.neutral)
    if chosen is not None:
        events.append(Event("OrderRevealed", None, {"order": chosen, "field": field}))
    return replace(state, neutral=planets, order_stack=tuple(stack)), events


# --- attacks ------------------------------------------------------------------------


def _attack_card(state: GameState, p: PlayerState, kind: str) -> BuiltCard | None:
    return next(
        (
            b
            for b in p.built
            if state.card_type(b.card).kind == kind and not b.covered and b.attack_markers > 0
        ),
        None,
    )


def _spend_marker(state: GameState, p: PlayerState, card: BuiltCard) -> GameState:
    built = tuple(
        replace(b, attack_markers=b.attack_markers - 1) if b.card == card.card else b for b in p.built
    )
    return state.with_player(replace(p, built=built))


def _sabotage(state: GameState, a: Sabotage) -> Result:
    """Attack an active timer: it is set aside and runs out without effect (5.1d)."""
    if (r := _running(state)) is not None:
        return r
    p, r = _known(state, a.attacker)
    if r is not None:
        return r
    q, r = _known(state, a.target_player)
    if r is not None:
        return r
    assert p is not None and q is not None
    probe = _attack_card(state, p, "sabotage")
    if probe is None:
        return _no(text("You need a built Sabotage Probe holding an attack marker"), R_SABOTAGE)
    timer = q.timer(a.target_timer) if isinstance(a.target_timer, int) else None
    if timer is None or timer.status is not TimerStatus.ACTIVE:
        return _no(text("A Sabotage Probe attacks only an active timer"), R_SABOTAGE)
    if timer.sabotaged_by is not None:
        return _no(text("That timer already carries an attack marker"), R_SABOTAGE)
    state = _spend_marker(state, p, probe)
    state = _set_timer(state, q.name, replace(timer, sabotaged_by=p.name))
    events = [Event("TimerSabotaged", p.name, {"target": q.name, "timer": a.target_timer})]
    if isinstance(timer.job, MoveShip):
        # the timer is set aside at once: the flight is called off where it started
        ship = state.ship(timer.job.ship)
        if ship is not None and ship.destination is not None:
            state = state.with_ship(replace(ship, field=timer.origin, destination=None))
            events.append(Event("ShipRecalled", q.name, {"ship": ship.id, "field": timer.origin}))
    return Accepted(state, tuple(events))


def _rocket(state: GameState, a: LaunchRocket) -> Result:
    """Block a free timer space in an action row with an Interstellar Rocket marker (5.1e)."""
    if (r := _running(state)) is not None:
        return r
    p, r = _known(state, a.attacker)
    if r is not None:
        return r
    q, r = _known(state, a.target_player)
    if r is not None:
        return r
    assert p is not None and q is not None
    rocket = _attack_card(state, p, "rocket")
    if rocket is None:
        return _no(text("You need a built Interstellar Rocket holding an attack marker"), R_ROCKET)
    target = q.built_card(a.card)
    if target is None or target.covered or not state.card_type(target.card).timer:
        return _no(text("An Interstellar Rocket hits a timer space in the action row"), R_ROCKET)
    if target.blocked_by is not None:
        return _no(text("That timer space is already blocked"), R_ROCKET)
    if _space_in_use(state, ("card", target.card)):
        return _no(text("A timer stands on that timer space"), R_ROCKET)
    blocked = sum(1 for b in q.built if b.blocked_by is not None)
    if blocked >= state.data.rocket_markers_per_target:
        return _no(
            text(
                "{player} is already blocked by {count} attack marker, the most at a time",
                "{player} is already blocked by {count} attack markers, the most at a time",
                player=q.name,
                count=blocked,
            ),
            R_ROCKET,
        )
    state = _spend_marker(state, p, rocket)
    q = state.player(q.name)
    assert q is not None
    built = tuple(replace(b, blocked_by=p.name) if b.card == target.card else b for b in q.built)
    state = state.with_player(replace(q, built=built))
    return Accepted(state, (Event("SpaceBlocked", p.name, {"target": q.name, "card": target.card}),))


# --- the end ------------------------------------------------------------------------


def _any_active(state: GameState) -> bool:
    return any(t.status is TimerStatus.ACTIVE for p in state.players for t in p.timers)


def _end(state: GameState, why: str) -> tuple[GameState, list[Event]]:
    """End the game; it is over once no timer is running any more (4)."""
    state = replace(state, phase=Phase.ENDING)
    events = [Event("GameEnded", None, {"reason": why})]
    state, more = _check_finished(state)
    return state, events + more


def _check_finished(state: GameState) -> tuple[GameState, list[Event]]:
    if state.phase is Phase.ENDING and not _any_active(state):
        score = final_score(state)
        return replace(state, phase=Phase.OVER), [Event("GameOver", None, score.to_json())]
    return state, []


def _clock(state: GameState, a: MasterClockExpired) -> Result:
    """The 30 minutes are over: the game ends, running timers still complete (4)."""
    if state.phase is not Phase.RUNNING:
        return _no(text("The game has already ended"), R_END)
    minutes = state.data.game_minutes
    state, events = _end(state, f"the {minutes} minutes are over")
    return Accepted(state, tuple(events))


def _ended_early(state: GameState, a: GameEndedEarly) -> Result:
    """The host ended the game before its time: it is over at once and scored as it stands.

    Running timers are stopped without effect (a sabotage's attack marker goes back to the
    pool, spare Robot Factory timers back to the box); the score is the orders satisfied so far (4).
    """
    if state.phase is Phase.OVER:
        return _no(text("The game is already over"), R_END)
    for p in state.players:
        for timer in p.timers:
            if timer.status is TimerStatus.INACTIVE:
                continue
            if timer.sabotaged_by is not None:
                state = replace(state, attack_pool=state.attack_pool + 1)
            stopped = replace(
                timer,
                status=TimerStatus.INACTIVE,
                job=None,
                sabotaged_by=None,
                clears_block=False,
                origin=None,
            )
            state = _set_timer(state, p.name, stopped)
        state = _retire_timers(state, p.name)
    score = final_score(state)
    events = [Event("GameEnded", None, {"reason": EARLY_END}), Event("GameOver", None, score.to_json())]
    return Accepted(replace(state, phase=Phase.OVER), tuple(events))


_Handler = Callable[[GameState, Any], Result]
"""Decides one kind of action; the parameter is the action class it is registered under."""

_HANDLERS: dict[type[Action], _Handler] = {
    PlayCard: _play_card,
    DrawTechCards: _draw,
    KeepDrawnCard: _keep,
    StartJob: _start_job,
    TimerRanOut: _timer_ran_out,
    PlaceBuiltCard: _place_built,
    AbandonJob: _abandon,
    TransferGoods: _transfer,
    ReturnGoods: _return_goods,
    SatisfyOrder: _satisfy,
    Sabotage: _sabotage,
    LaunchRocket: _rocket,
    GiveCard: _give,
    TradeCards: _trade,
    MasterClockExpired: _clock,
    GameEndedEarly: _ended_early,
}
