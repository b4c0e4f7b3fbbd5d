"""Where things are on a Space Dealer table: build sites, power, timer spaces and the places goods lie.

Pure rules the engine (:mod:`.engine`, :mod:`.jobs`) and the phone's previews share. A broken rule is
raised with :func:`~companion.rules.outcome.refuse`; the ``*_problem`` helpers answer it as a value
for the pages.

Build sites are measured in half-card units: the planet takes units 0 and 1 of the planet row, the
power-plant sites beside it units -2..-1 (left) and 2..3 (right). A card with one power connection
stands upright on one unit of the action row and the order row; a card with two lies across two units
of the action row (rulebook 3.2.2).
"""

from __future__ import annotations

from dataclasses import replace

from companion.games.space_dealer.cards import CardType
from companion.games.space_dealer.model import (
    BuildCard,
    BuiltCard,
    DiscardCard,
    GameState,
    Goods,
    Holder,
    InDepot,
    InShip,
    Job,
    OnProbe,
    PlayerState,
    RaiseTechLevel,
    TimerStatus,
    UseCard,
)
from companion.games.space_dealer.scoring import FinalScore, score_orders
from companion.games.space_dealer.words import type_text
from companion.rules.outcome import Rejected, checked, refuse
from companion.rules.text import Text, text

LEFT, RIGHT = 0, 1
PLANT_SITES = {-2: LEFT, 2: RIGHT}
"""Build-site units of the power plants: left and right of the planet (units 0 and 1)."""
PLANET_UNITS = (0, 1)

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
R_TABLE = text("What the table drew")
"""The rule an impossible entry breaks: the box holds only what it holds."""


# --- scores and capacities ------------------------------------------------------------------------------


def final_score(state: GameState) -> FinalScore:
    """The score of the satisfied orders, by the same function as ``companion score`` (rulebook 4)."""
    return score_orders(state.names, state.satisfied)


def planning_capacity(state: GameState, player: PlayerState) -> int:
    """Planning area size: 2, plus 2 per TechCenter not built over (3.1, 5.1a)."""
    bonus = sum(state.card_type(b.card).planning_bonus for b in player.built if not b.covered)
    return state.data.planning_area + bonus


def timer_limit(state: GameState, player: PlayerState) -> int:
    """Timers a player may use: 2, plus 1 per Robot Factory not built over (2, 5.1b)."""
    extra = sum(state.card_type(b.card).extra_timers for b in player.built if not b.covered)
    return min(len(player.timers), state.data.timers_per_player + extra)


# --- power and build sites -------------------------------------------------------------------


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


def space_of(job: Job, player: str) -> tuple[str, str]:
    """The timer space a job occupies: the player's planet, a card, or a spaceship (3.2)."""
    if isinstance(job, RaiseTechLevel):
        return ("planet", player)
    if isinstance(job, (BuildCard, DiscardCard)):
        return ("planning", job.card)
    if isinstance(job, UseCard):
        return ("card", job.card)
    return ("ship", job.ship)


def space_in_use(state: GameState, space: tuple[str, str]) -> bool:
    """True when an active or usable timer stands on this timer space.

    A sabotaged timer has been set aside (rulebook 5.1d), so it no longer takes up a space.
    """
    for p in state.players:
        for t in p.timers:
            if t.status is TimerStatus.INACTIVE or t.job is None or t.sabotaged_by is not None:
                continue
            if space_of(t.job, p.name) == space:
                return True
    return False


def card_busy(state: GameState, card: str) -> bool:
    """True when a timer stands on a card in a planning area (a build or a discard)."""
    return space_in_use(state, ("planning", card))


def check_site(state: GameState, player: PlayerState, card_id: str, x: int) -> None:
    """Refuse building ``card_id`` at unit ``x`` of the player's planet unless the site is good (3.2.2, 5.1e)."""
    t = state.card_type(card_id)
    if t.layout == "plant":
        _check_plant_site(state, player, t, x)
        return
    low, high = state.data.x_range
    cells = footprint(t, x)
    if any(not low <= u <= high for _, u in cells):
        refuse(text("Build sites run from unit {low} to unit {high}", low=low, high=high), R_BUILD)
    power = energised_units(state, player)
    if t.connections == 1 and x not in power:
        refuse(
            text("A card with one power connection must stand on a connection supplied by a power plant"),
            R_BUILD,
        )
    if t.connections == 2 and not {x, x + 1} <= power:
        refuse(
            text("A card with two power connections needs both connections supplied by power plants"), R_BUILD
        )
    if t.connections == 0 and not _touches(player, cells):
        refuse(
            text("A card without power connection must touch another card with at least one side"), R_BUILD
        )
    for b in player.built:
        overlap = b.cells & cells
        if not overlap:
            continue
        under = type_text(state.cards[b.card].type)
        if any(row == "order" for row, _ in overlap):
            refuse(
                text("Cards may only be built over other cards in the action row, never in the order row"),
                R_BUILD,
            )
        if b.blocked_by is not None:
            refuse(
                text(
                    "The card {card} is blocked by an Interstellar Rocket and cannot be built over",
                    card=under,
                ),
                R_ROCKET,
            )
        if space_in_use(state, ("card", b.card)):
            refuse(
                text("A timer stands on the card {card}; it cannot be built over now", card=under), R_BUILD
            )


def _check_plant_site(state: GameState, player: PlayerState, t: CardType, x: int) -> None:
    side = PLANT_SITES.get(x)
    if side is None:
        refuse(
            text("A power plant is built directly left (unit -2) or right (unit 2) of the planet"), R_BUILD
        )
    stack = player.plants[side]
    top = state.cards[stack[-1]].type if stack else ""
    if not t.on:
        if stack:
            refuse(text("There is already a {card} on that side of the planet", card=type_text(top)), R_BUILD)
        return
    if top != t.on:
        refuse(
            text(
                "A {card} may only be built on top of a {base}", card=type_text(t.name), base=type_text(t.on)
            ),
            R_BUILD,
        )


def _touches(player: PlayerState, cells: frozenset[tuple[str, int]]) -> bool:
    """True when a card on ``cells`` touches the planet or another card with a side (3.2.2d)."""
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
    return bool((neighbours - cells) & occupied)


def site_problem(state: GameState, player: PlayerState, card_id: str, x: int) -> Text | None:
    """Why ``card_id`` cannot be built at unit ``x`` of the player's planet, or None (3.2.2, 5.1e)."""
    refused = checked(check_site)(state, player, card_id, x)
    return refused.reason if isinstance(refused, Rejected) else None


def order_owner(state: GameState, order_id: str) -> str | None:
    """The player on whose planet the card ``order_id`` is built."""
    for p in state.players:
        if p.built_card(order_id) is not None:
            return p.name
    return None


def open_orders(state: GameState, owner: str) -> list[str]:
    """The orders on ``owner``'s built cards nobody has satisfied yet."""
    p = state.player(owner)
    if p is None:
        return []
    return [
        b.card
        for b in p.built
        if state.cards[b.card].order is not None and all(o.order != b.card for o in state.satisfied)
    ]


# --- where goods lie -------------------------------------------------------------------------


def depot(state: GameState, player: PlayerState) -> BuiltCard | None:
    """The player's Depot that is not built over (the first one, if they came to own two)."""
    return next(
        (b for b in player.built if state.card_type(b.card).kind == "storage" and not b.covered), None
    )


def holder_field(state: GameState, holder: Holder, rule: Text) -> int:
    """The orbital field goods in ``holder`` are at; refused (with ``rule``) when they cannot be there."""
    if isinstance(holder, InShip):
        ship = state.ship(holder.ship)
        if ship is None:
            refuse(text("There is no spaceship {ship}", ship=str(holder.ship)), rule)
        if ship.field is None:
            refuse(text("That spaceship is in flight and not at a planet"), rule)
        return ship.field
    if isinstance(holder, InDepot):
        p = state.player(holder.player)
        if p is None:
            refuse(text("{player} does not play in this game", player=str(holder.player)), rule)
        if depot(state, p) is None:
            refuse(text("{player} has no Depot built on the planet", player=p.name), rule)
        return state.planet_field(p.name)
    if isinstance(holder, OnProbe):
        p = state.player(holder.player)
        b = p.built_card(holder.card) if p else None
        if p is None or b is None or state.card_type(b.card).kind != "transport" or b.covered:
            refuse(text("That is not a Transport Probe in use"), rule)
        if space_in_use(state, ("card", b.card)):
            refuse(text("A Transport Probe stores goods only while no timer stands on it"), rule)
        return state.planet_field(p.name)
    if not state.experienced:
        refuse(text("Goods are left at neutral planets only with the rules for experienced players"), rule)
    if state.neutral_at(holder.field) is None:
        refuse(text("That orbital field is not a neutral planet"), rule)
    return holder.field


def holder_goods(state: GameState, holder: Holder) -> Goods:
    if isinstance(holder, InShip):
        s = state.ship(holder.ship)
        return s.cargo if s else Goods()
    if isinstance(holder, InDepot):
        p = state.player(holder.player)
        d = depot(state, p) if p else None
        return d.stored if d else Goods()
    if isinstance(holder, OnProbe):
        p = state.player(holder.player)
        b = p.built_card(holder.card) if p else None
        return b.stored if b else Goods()
    n = state.neutral_at(holder.field)
    return n.goods if n else Goods()


def holder_room(state: GameState, holder: Holder) -> int | None:
    """Free room for goods (None = no limit)."""
    if isinstance(holder, InShip):
        return state.data.cargo_limit - holder_goods(state, holder).total
    if isinstance(holder, InDepot):
        p = state.player(holder.player)
        d = depot(state, p) if p else None
        if d is None:
            return None
        cap = state.card_type(d.card).capacity
        return None if cap is None else cap - d.stored.total
    if isinstance(holder, OnProbe):
        p = state.player(holder.player)
        b = p.built_card(holder.card) if p else None
        cap = state.card_type(b.card).capacity if b else 0
        return None if cap is None else cap - holder_goods(state, holder).total
    return None


def set_goods(state: GameState, holder: Holder, goods: Goods) -> GameState:
    """The state with ``holder`` holding exactly ``goods``."""
    if isinstance(holder, InShip):
        ship = state.ship(holder.ship)
        assert ship is not None
        return state.with_ship(replace(ship, cargo=goods))
    if isinstance(holder, (InDepot, OnProbe)):
        p = state.player(holder.player)
        assert p is not None
        if isinstance(holder, InDepot):
            stored = depot(state, p)
            assert stored is not None  # goods are only moved into or out of an existing Depot
            target = stored.card
        else:
            target = holder.card
        built = tuple(replace(b, stored=goods) if b.card == target else b for b in p.built)
        return state.with_player(replace(p, built=built))
    planets = tuple(replace(n, goods=goods) if n.field == holder.field else n for n in state.neutral)
    return replace(state, neutral=planets)


def controls_holder(state: GameState, player: str, holder: Holder) -> bool:
    """True when ``player`` may take goods out of ``holder`` (their ship, Depot or Transport Probe)."""
    if isinstance(holder, InShip):
        ship = state.ship(holder.ship)
        return ship is not None and ship.controller == player
    if isinstance(holder, (InDepot, OnProbe)):
        return holder.player == player
    return False
