"""Space Dealer rules engine: ``apply(state, action) -> Accepted | Rejected``.

Pure: no clock, no I/O, no global randomness. The shuffles of the setup use a
``random.Random(seed)`` of their own, never the module's shared generator; after the
setup nothing is random (cards are drawn from the top of the stacks). The card data is
handed in (``GAME.data``, or a table's corrected copy): the engine reads no files. Time
arrives as actions (:class:`~.model.TimerRanOut`, :class:`~.model.MasterClockExpired`).
Every refusal is raised with :func:`~companion.rules.outcome.refuse` and names the rule it
enforces; :func:`apply` is the one place it is answered as a :class:`Rejected`.

The timers' jobs are decided in :mod:`.jobs`, build sites and the places goods lie in :mod:`.board`.
Section numbers refer to the Space Dealer rulebook (``rulebooks/space-dealer.txt``).
"""

from __future__ import annotations

import random  # used only as a seeded private generator, random.Random(seed) in setup(); never the shared one
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from companion.errors import CompanionError
from companion.games.space_dealer import board as B
from companion.games.space_dealer import jobs
from companion.games.space_dealer.board import (
    R_END,
    R_GOODS,
    R_JOB,
    R_NEUTRAL,
    R_ORDER,
    R_PLAY,
    R_PROBE,
    R_ROCKET,
    R_SABOTAGE,
    R_SETUP,
    R_TECH,
    R_TRADE,
)
from companion.games.space_dealer.cards import CardData, OrderSpec
from companion.games.space_dealer.jobs import Stepped, known
from companion.games.space_dealer.model import (
    NEUTRAL_SHIP_IDS,
    AbandonJob,
    Act,
    Action,
    AtNeutralPlanet,
    BuiltCard,
    Card,
    CardGiven,
    CardKept,
    CardPlanned,
    CardsDrawn,
    CardsTraded,
    ChooseStart,
    DrawTechCards,
    Event,
    GameEnded,
    GameEndedEarly,
    GameOver,
    GameState,
    GiveCard,
    Goods,
    GoodsReturned,
    GoodsTransferred,
    InShip,
    KeepDrawnCard,
    LaunchRocket,
    MasterClockExpired,
    MoveShip,
    NeutralPlanet,
    OnProbe,
    OrderRedrawn,
    OrderRevealed,
    OrderSatisfied,
    Phase,
    PlaceBuiltCard,
    PlayCard,
    PlayerState,
    ReturnGoods,
    Sabotage,
    SatisfyOrder,
    Ship,
    ShipRecalled,
    SpaceBlocked,
    StartChosen,
    StartJob,
    Timer,
    TimerRanOut,
    TimerSabotaged,
    TimerStatus,
    TradeCards,
    TransferGoods,
)
from companion.games.space_dealer.scoring import MAX_PLAYERS, MIN_PLAYERS, SatisfiedOrder
from companion.games.space_dealer.words import colour_text, colours_text
from companion.rules.outcome import Accepted, Rejected, checked, refuse
from companion.rules.text import TextError, text

Result = Accepted[GameState] | Rejected

# the queries the pages and the tests use, where the rules keep them
final_score = B.final_score
planning_capacity = B.planning_capacity
timer_limit = B.timer_limit
energised_units = B.energised_units
site_problem = B.site_problem


class SetupError(CompanionError, TextError):
    """The game cannot be set up as asked (player count, names, start choices); ``.text`` in words."""


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
    starts: Mapping[str, ChooseStart] | None = None,
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
        player = PlayerState(
            name=name, seat=seat, timers=tuple(Timer(i) for i in range(data.timers_per_player))
        )
        laid_out = checked(_lay_out)(cards, player, personal_sets[seat], starts.get(name, ChooseStart()))
        if isinstance(laid_out, Rejected):
            raise SetupError(laid_out.reason)
        state_players.append(replace(laid_out, start=starts.get(name)))
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


def _lay_out(
    cards: Mapping[str, Card], player: PlayerState, own: Sequence[str], start: ChooseStart
) -> PlayerState:
    """The player's start from their personal cards ``own`` (rulebook 2): one Generator beside the planet
    on the chosen side, the chosen Mine on one of its power connections, the rest face down in the stack."""
    name = player.name
    if start.side not in ("left", "right"):
        refuse(text("{player}: the Generator goes left or right of the planet", player=name), R_SETUP)
    mines = [c for c in own if cards[c].type == "Mine"]
    mine = mines[0] if not start.mine else next((c for c in mines if cards[c].colour == start.mine), None)
    if mine is None:
        refuse(
            text(
                "{player} has no {colour} Mine in their personal stack",
                player=name,
                colour=colour_text(start.mine),
            ),
            R_SETUP,
        )
    gen = next(c for c in own if cards[c].type == "Generator")
    side = B.LEFT if start.side == "left" else B.RIGHT
    anchor = -2 if side == B.LEFT else 2
    x = anchor if start.x is None else start.x
    if x not in (anchor, anchor + 1):
        refuse(
            text("{player}: the first Mine must stand on a power connection of the Generator", player=name),
            R_SETUP,
        )
    plants: list[tuple[str, ...]] = [(), ()]
    plants[side] = (gen,)
    return replace(
        player,
        stack=tuple(c for c in own if c not in (mine, gen)),
        plants=(plants[0], plants[1]),
        built=(BuiltCard(mine, x, frozenset({("action", x), ("order", x)})),),
    )


# =====================================================================================
# apply
# =====================================================================================


def is_legal(state: GameState, action: Action) -> bool:
    """True when ``apply`` would accept the action."""
    return apply(state, action).ok


@checked
def apply(state: GameState, action: Action) -> Accepted[GameState]:
    """Decide an action: the new state and events, or a rejection naming the rule."""
    if isinstance(action, Act):
        handler = _MOVES.get(type(action.move))
        if handler is None:
            refuse(text("Unknown action {action}", action=type(action.move).__name__), R_JOB)
        state, events = handler(state, action.player, action.move)
    elif isinstance(action, StartJob):
        state, events = jobs.start_job(state, action)
    elif isinstance(action, TimerRanOut):
        state, events = jobs.timer_ran_out(state, action)
    elif isinstance(action, MasterClockExpired):
        state, events = _clock(state)
    elif isinstance(action, GameEndedEarly):
        state, events = _ended_early(state)
    else:
        refuse(text("Unknown action {action}", action=type(action).__name__), R_JOB)
    return Accepted(state, tuple(events))


def _running(state: GameState) -> None:
    if state.phase is not Phase.RUNNING:
        refuse(text("The game has ended; only timers that are still running complete"), R_END)


# --- the start ----------------------------------------------------------------------------------


def _choose_start(state: GameState, player: str, move: ChooseStart) -> Stepped:
    """A player's secret start (rulebook 2): their Generator's side and first Mine, laid out again."""
    _running(state)
    p = known(state, player)
    untouched = (
        not p.planning
        and len(p.built) == 1
        and len(p.plants[0]) + len(p.plants[1]) == 1
        and all(t.status is TimerStatus.INACTIVE for t in p.timers)
    )
    if not untouched:
        refuse(text("The Generator and the first Mine are chosen before the game starts"), R_SETUP)
    order = {card: i for i, card in enumerate(state.cards)}
    own = sorted((*p.stack, *p.plants[0], *p.plants[1], p.built[0].card), key=order.__getitem__)
    laid_out = _lay_out(state.cards, p, own, move)
    state = state.with_player(replace(laid_out, start=move))
    return state, [StartChosen(player, move.side, laid_out.built[0].card)]


# --- free actions with cards ----------------------------------------------------------


def _play_card(state: GameState, player: str, a: PlayCard) -> Stepped:
    """Put a card from the personal stack into a free space of the planning area (3.1)."""
    _running(state)
    p = known(state, player)
    if a.card not in p.stack:
        refuse(text("That card is not in your personal technology stack"), R_PLAY)
    if len(p.planning) >= B.planning_capacity(state, p):
        refuse(text("Your planning area has no free space"), R_PLAY)
    p = replace(p, stack=tuple(c for c in p.stack if c != a.card), planning=p.planning + (a.card,))
    return state.with_player(p), [CardPlanned(p.name, a.card)]


def _draw(state: GameState, player: str, a: DrawTechCards) -> Stepped:
    """Look at the top two cards of a common stack the technology level allows (3.2.1)."""
    _running(state)
    p = known(state, player)
    if a.level not in (2, 3):
        refuse(text("Cards are drawn from the common TechLevel 2 or TechLevel 3 stack"), R_TECH)
    if p.tech_level < a.level:
        refuse(
            text("Drawing from the TechLevel {level} stack needs technology level {level}", level=a.level),
            R_TECH,
        )
    if p.pending_draw is not None:
        refuse(text("Keep one of the two cards you have drawn first"), R_TECH)
    if len(p.planning) >= B.planning_capacity(state, p):
        refuse(text("Your planning area has no free space"), R_PLAY)
    stack = state.stack2 if a.level == 2 else state.stack3
    if not stack:
        refuse(text("The TechLevel {level} stack is empty", level=a.level), R_TECH)
    drawn, rest = stack[:2], stack[2:]
    state = _with_stack(state, a.level, rest)
    state = state.with_player(replace(p, pending_draw=(a.level, drawn)))
    return state, [CardsDrawn(p.name, a.level, drawn)]


def _keep(state: GameState, player: str, a: KeepDrawnCard) -> Stepped:
    """Keep one drawn card in the planning area; the other goes under its stack (3.2.1)."""
    _running(state)
    p = known(state, player)
    if p.pending_draw is None:
        refuse(text("You have not drawn any cards to choose from"), R_TECH)
    level, drawn = p.pending_draw
    if a.card not in drawn:
        refuse(text("Keep one of the two cards you drew"), R_TECH)
    if len(p.planning) >= B.planning_capacity(state, p):
        refuse(text("Your planning area has no free space"), R_PLAY)
    back = tuple(c for c in drawn if c != a.card)
    stack = (state.stack2 if level == 2 else state.stack3) + back
    state = _with_stack(state, level, stack)
    state = state.with_player(replace(p, pending_draw=None, planning=p.planning + (a.card,)))
    return state, [CardKept(p.name, a.card, back)]


def _with_stack(state: GameState, level: int, stack: tuple[str, ...]) -> GameState:
    """The state with the common TechLevel ``level`` stack (2 or 3) replaced by ``stack``."""
    return replace(state, stack2=stack) if level == 2 else replace(state, stack3=stack)


def _give(state: GameState, player: str, a: GiveCard) -> Stepped:
    """Give a planned card to a player with free planning space (5.2)."""
    _running(state)
    if not state.experienced:
        refuse(text("Cards change hands only with the rules for experienced players"), R_TRADE)
    p = known(state, player)
    q = known(state, a.receiver)
    if p.name == q.name:
        refuse(text("Give the card to another player"), R_TRADE)
    if a.card not in p.planning:
        refuse(text("Only cards in your planning area can be given away"), R_TRADE)
    if B.card_busy(state, a.card):
        refuse(text("A timer stands on that card"), R_TRADE)
    if len(q.planning) >= B.planning_capacity(state, q):
        refuse(text("{player} has no free space in the planning area", player=q.name), R_TRADE)
    state = state.with_player(replace(p, planning=tuple(c for c in p.planning if c != a.card)))
    state = state.with_player(replace(q, planning=q.planning + (a.card,)))
    return state, [CardGiven(p.name, a.card, q.name)]


def _trade(state: GameState, player: str, a: TradeCards) -> Stepped:
    """Swap planned cards by agreement (5.2)."""
    _running(state)
    if not state.experienced:
        refuse(text("Cards change hands only with the rules for experienced players"), R_TRADE)
    p = known(state, player)
    q = known(state, a.other)
    if p.name == q.name:
        refuse(text("Trade with another player"), R_TRADE)
    if a.card not in p.planning or a.other_card not in q.planning:
        refuse(text("Only cards in the two planning areas can be traded"), R_TRADE)
    if B.card_busy(state, a.card) or B.card_busy(state, a.other_card):
        refuse(text("A timer stands on one of the cards"), R_TRADE)
    state = state.with_player(
        replace(p, planning=tuple(a.other_card if c == a.card else c for c in p.planning))
    )
    state = state.with_player(
        replace(q, planning=tuple(a.card if c == a.other_card else c for c in q.planning))
    )
    return state, [CardsTraded(p.name, a.card, a.other_card, q.name)]


def _place_built(state: GameState, player: str, a: PlaceBuiltCard) -> Stepped:
    return jobs.place_built(state, player, a)


def _abandon(state: GameState, player: str, a: AbandonJob) -> Stepped:
    return jobs.abandon(state, player, a)


# --- goods and orders ---------------------------------------------------------------


def _valid_goods(state: GameState, goods: object) -> Goods:
    if not isinstance(goods, Goods) or not goods:
        refuse(text("Name at least one good to move"), R_GOODS)
    if any(c not in state.data.colours for c, _ in goods.items):
        refuse(text("Goods come in {colours}", colours=colours_text(state.data.colours)), R_GOODS)
    if not goods.well_formed:
        refuse(text("Name each goods colour once, with at least one cube of it"), R_GOODS)
    return goods


def _rule_for(holder: object) -> Any:
    return R_NEUTRAL if isinstance(holder, AtNeutralPlanet) else R_GOODS


def _transfer(state: GameState, player: str, a: TransferGoods) -> Stepped:
    """Move goods between holders at the same planet, within their capacity (3.3, 5.1f, 5.3)."""
    _running(state)
    known(state, player)
    goods = _valid_goods(state, a.goods)
    if a.source == a.target:
        refuse(text("Goods must move between two different places"), R_GOODS)
    if not B.controls_holder(state, player, a.source) and not isinstance(a.source, AtNeutralPlanet):
        refuse(
            text("You can only hand over goods from your own spaceship, Depot or Transport Probe"), R_GOODS
        )
    if isinstance(a.source, AtNeutralPlanet) and not (
        isinstance(a.target, InShip) and B.controls_holder(state, player, a.target)
    ):
        refuse(text("Goods left at a neutral planet are collected by a spaceship that is there"), R_NEUTRAL)
    src_field = B.holder_field(state, a.source, _rule_for(a.source))
    dst_field = B.holder_field(state, a.target, _rule_for(a.target))
    if src_field != dst_field:
        refuse(text("Goods can only be exchanged between spaceships and Depots at the same planet"), R_GOODS)
    have = B.holder_goods(state, a.source)
    if not have.contains(goods):
        refuse(text("Those goods are not there"), R_GOODS)
    room = B.holder_room(state, a.target)
    if room is not None and goods.total > room:
        if isinstance(a.target, InShip):
            refuse(
                text(
                    "A spaceship holds at most {count} good",
                    "A spaceship holds at most {count} goods",
                    count=state.data.cargo_limit,
                ),
                R_GOODS,
            )
        if isinstance(a.target, OnProbe):
            refuse(
                text(
                    "A Transport Probe stores at most {count} good",
                    "A Transport Probe stores at most {count} goods",
                    count=room + B.holder_goods(state, a.target).total,
                ),
                R_PROBE,
            )
        refuse(
            text(
                "The Depot has room for only {count} more good",
                "The Depot has room for only {count} more goods",
                count=room,
            ),
            R_GOODS,
        )
    state = B.set_goods(state, a.source, have - goods)
    state = B.set_goods(state, a.target, B.holder_goods(state, a.target) + goods)
    return state, [GoodsTransferred(player, goods)]


def _return_goods(state: GameState, player: str, a: ReturnGoods) -> Stepped:
    """Put unwanted goods of one's own back into the common pool (3.2.4, 3.4)."""
    _running(state)
    known(state, player)
    goods = _valid_goods(state, a.goods)
    if not B.controls_holder(state, player, a.source):
        refuse(text("You can only return goods from your own spaceship, Depot or Transport Probe"), R_GOODS)
    if not isinstance(a.source, InShip):
        B.holder_field(state, a.source, R_GOODS)
    have = B.holder_goods(state, a.source)
    if not have.contains(goods):
        refuse(text("Those goods are not there"), R_GOODS)
    state = B.set_goods(state, a.source, have - goods)
    state = replace(state, pool=state.pool + goods)
    return state, [GoodsReturned(player, goods)]


def _able(state: GameState, field: int, wanted: Goods) -> set[str]:
    """Players with a spaceship at ``field`` carrying ``wanted`` (5.3 re-draw rule)."""
    return {
        s.controller
        for s in state.ships
        if s.field == field and s.controller is not None and s.cargo.contains(wanted)
    }


def _satisfy(state: GameState, player: str, a: SatisfyOrder) -> Stepped:
    """Deliver an order at another player's planet or a neutral planet (3.4, 4, 5.3)."""
    _running(state)
    p = known(state, player)
    if not isinstance(a.order, str):
        refuse(text("Name the order by the card it is printed on"), R_ORDER)
    ship = state.ship(a.ship)
    if ship is None or ship.controller != p.name:
        refuse(text("Deliver with a spaceship you control"), R_ORDER)
    if ship.field is None:
        refuse(text("The spaceship is in flight and not at a planet"), R_ORDER)
    if any(o.order == a.order for o in state.satisfied):
        refuse(text("That order has already been satisfied; each order only once"), R_ORDER)
    if a.order in state.order_cards:
        return _satisfy_neutral(state, p, ship, a.order)
    owner = B.order_owner(state, a.order)
    card = state.cards.get(a.order)
    if owner is None or card is None or card.order is None:
        refuse(text("There is no order of that name on a built card"), R_ORDER)
    if owner == p.name:
        refuse(text("Nobody may satisfy orders at their own planet"), R_ORDER)
    if ship.field != state.planet_field(owner):
        refuse(
            text("Your spaceship must be at {player}'s planet to satisfy that order", player=owner), R_ORDER
        )
    if p.markers_placed >= state.data.placeable_markers:
        refuse(text("You have no victory-point markers left to place"), R_END)
    wanted = Goods.of(card.order.goods_dict())
    if not ship.cargo.contains(wanted):
        refuse(text("Your spaceship does not carry the goods the order asks for"), R_ORDER)
    state = state.with_ship(replace(ship, cargo=ship.cargo - wanted))
    state = replace(state, pool=state.pool + wanted)
    p = replace(p, markers_placed=p.markers_placed + 1)
    state = state.with_player(p)
    satisfied = SatisfiedOrder(a.order, p.name, owner, card.order.points)
    state = replace(state, satisfied=state.satisfied + (satisfied,))
    events: list[Event] = [OrderSatisfied(p.name, a.order, owner, card.order.points, p.markers_placed)]
    if p.markers_placed >= state.data.placeable_markers:
        state, more = _end(state, GameEnded("marker", p.name))
        events.extend(more)
    return state, events


def _satisfy_neutral(state: GameState, p: PlayerState, ship: Ship, order: str) -> Stepped:
    """Take a neutral planet's order card; the next one is turned up (5.3)."""
    assert ship.field is not None
    neutral = state.neutral_at(ship.field)
    if neutral is None or neutral.order != order:
        refuse(
            text("That order card is not face up at the neutral planet where your spaceship is"), R_NEUTRAL
        )
    spec = state.order_cards[order]
    wanted = Goods.of(spec.goods_dict())
    if not ship.cargo.contains(wanted):
        refuse(text("Your spaceship does not carry the goods the order asks for"), R_ORDER)
    state = state.with_ship(replace(ship, cargo=ship.cargo - wanted))
    state = replace(state, pool=state.pool + wanted)
    state = state.with_player(replace(p, neutral_cards=p.neutral_cards + (order,)))
    state = replace(state, satisfied=state.satisfied + (SatisfiedOrder(order, p.name, None, spec.points),))
    events: list[Event] = [OrderSatisfied(p.name, order, None, spec.points, p.markers_placed)]
    state, more = _reveal_neutral_order(state, ship.field)
    return state, events + more


def _reveal_neutral_order(state: GameState, field: int) -> Stepped:
    """Turn up the next order card; re-draw while several players could satisfy it at once (5.3)."""
    stack = list(state.order_stack)
    events: list[Event] = []
    chosen: str | None = None
    for _ in range(len(stack)):
        card = stack.pop(0)
        if len(_able(state, field, Goods.of(state.order_cards[card].goods_dict()))) > 1:
            stack.append(card)
            events.append(OrderRedrawn(card, field))
            chosen = card
            continue
        chosen = card
        break
    else:
        if chosen is not None:  # every card was contested: show the last one drawn
            stack.remove(chosen)
    planets = tuple(replace(n, order=chosen) if n.field == field else n for n in state.neutral)
    if chosen is not None:
        events.append(OrderRevealed(chosen, field))
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


def _sabotage(state: GameState, player: str, a: Sabotage) -> Stepped:
    """Attack an active timer: it is set aside and runs out without effect (5.1d)."""
    _running(state)
    p = known(state, player)
    q = known(state, a.target_player)
    probe = _attack_card(state, p, "sabotage")
    if probe is None:
        refuse(text("You need a built Sabotage Probe holding an attack marker"), R_SABOTAGE)
    timer = q.timer(a.target_timer) if isinstance(a.target_timer, int) else None
    if timer is None or timer.status is not TimerStatus.ACTIVE:
        refuse(text("A Sabotage Probe attacks only an active timer"), R_SABOTAGE)
    if timer.sabotaged_by is not None:
        refuse(text("That timer already carries an attack marker"), R_SABOTAGE)
    state = _spend_marker(state, p, probe)
    state = jobs.set_timer(state, q.name, replace(timer, sabotaged_by=p.name))
    events: list[Event] = [TimerSabotaged(p.name, q.name, a.target_timer)]
    if isinstance(timer.job, MoveShip):
        # the timer is set aside at once: the flight is called off where it started
        ship = state.ship(timer.job.ship)
        if ship is not None and ship.destination is not None:
            state = state.with_ship(replace(ship, field=timer.origin, destination=None))
            events.append(ShipRecalled(q.name, ship.id, timer.origin))
    return state, events


def _rocket(state: GameState, player: str, a: LaunchRocket) -> Stepped:
    """Block a free timer space in an action row with an Interstellar Rocket marker (5.1e)."""
    _running(state)
    p = known(state, player)
    q = known(state, a.target_player)
    rocket = _attack_card(state, p, "rocket")
    if rocket is None:
        refuse(text("You need a built Interstellar Rocket holding an attack marker"), R_ROCKET)
    target = q.built_card(a.card)
    if target is None or target.covered or not state.card_type(target.card).timer:
        refuse(text("An Interstellar Rocket hits a timer space in the action row"), R_ROCKET)
    if target.blocked_by is not None:
        refuse(text("That timer space is already blocked"), R_ROCKET)
    if B.space_in_use(state, ("card", target.card)):
        refuse(text("A timer stands on that timer space"), R_ROCKET)
    blocked = sum(1 for b in q.built if b.blocked_by is not None)
    if blocked >= state.data.rocket_markers_per_target:
        refuse(
            text(
                "{player} is already blocked by {count} attack marker, the most at a time",
                "{player} is already blocked by {count} attack markers, the most at a time",
                player=q.name,
                count=blocked,
            ),
            R_ROCKET,
        )
    state = _spend_marker(state, p, rocket)
    q = known(state, q.name)
    built = tuple(replace(b, blocked_by=p.name) if b.card == target.card else b for b in q.built)
    state = state.with_player(replace(q, built=built))
    return state, [SpaceBlocked(p.name, q.name, target.card)]


# --- the end ------------------------------------------------------------------------


def _end(state: GameState, why: GameEnded) -> Stepped:
    """End the game; it is over once no timer is running any more (4)."""
    state, more = jobs.check_finished(replace(state, phase=Phase.ENDING))
    return state, [why, *more]


def _clock(state: GameState) -> Stepped:
    """The 30 minutes are over: the game ends, running timers still complete (4)."""
    if state.phase is not Phase.RUNNING:
        refuse(text("The game has already ended"), R_END)
    return _end(state, GameEnded("clock"))


def _ended_early(state: GameState) -> Stepped:
    """The host ended the game before its time: it is over at once and scored as it stands.

    Running timers are stopped without effect (a sabotage's attack marker goes back to the
    pool, spare Robot Factory timers back to the box); the score is the orders satisfied so far (4).
    """
    if state.phase is Phase.OVER:
        refuse(text("The game is already over"), R_END)
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
            state = jobs.set_timer(state, p.name, stopped)
        state = jobs.retire_timers(state, p.name)
    events: list[Event] = [GameEnded("host"), GameOver(B.final_score(state))]
    return replace(state, phase=Phase.OVER), events


_Handler = Callable[[GameState, str, Any], Stepped]
"""Decides one kind of move for the acting player; the move is of the class it is registered under."""

_MOVES: dict[type, _Handler] = {
    ChooseStart: _choose_start,
    PlayCard: _play_card,
    DrawTechCards: _draw,
    KeepDrawnCard: _keep,
    PlaceBuiltCard: _place_built,
    AbandonJob: _abandon,
    TransferGoods: _transfer,
    ReturnGoods: _return_goods,
    SatisfyOrder: _satisfy,
    Sabotage: _sabotage,
    LaunchRocket: _rocket,
    GiveCard: _give,
    TradeCards: _trade,
}
