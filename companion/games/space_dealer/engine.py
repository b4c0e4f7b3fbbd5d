"""Space Dealer rules engine: ``apply(state, action) -> Accepted | Rejected``.

Pure: no clock, no I/O, no randomness. The box on the table is the truth: :func:`setup` deals
nothing at random; what the table drew, turned up or was dealt is an input (an entry: the pile of
Mines and the Depot each player was dealt, the card a player keeps from a common stack, each neutral
order turned up), checked against what the pile can still hold (:class:`~companion.rules.deck.Pile`:
its contents, never its order). The hub deck (:mod:`.hubdeck`) is the same game with the hub making
those entries from its own seeded shuffle. The card data is handed in (``GAME.data``, or a table's
corrected copy): the engine reads no files. Time arrives as actions (:class:`~.model.TimerRanOut`,
:class:`~.model.MasterClockExpired`). Every refusal is raised with
:func:`~companion.rules.outcome.refuse` and names the rule it enforces; :func:`apply` is the one
place it is answered as a :class:`Rejected`.

The timers' jobs are decided in :mod:`.jobs`, build sites and the places goods lie in :mod:`.board`.
Section numbers refer to the Space Dealer rulebook (``rulebooks/space-dealer.txt``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

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
    R_TABLE,
    R_TECH,
    R_TRADE,
)
from companion.games.space_dealer.dealing import choose_start, take_depot, take_mines
from companion.games.space_dealer.events import (
    CardGiven,
    CardKept,
    CardPlanned,
    CardsDrawn,
    CardsShown,
    CardsTraded,
    Event,
    GameEnded,
    GameOver,
    GoodsReturned,
    GoodsTransferred,
    KeptCardCorrected,
    OrderCorrected,
    OrderRedrawn,
    OrderRevealed,
    OrderSatisfied,
    ShipRecalled,
    SpaceBlocked,
    TimerSabotaged,
)
from companion.games.space_dealer.jobs import Stepped, known, running
from companion.games.space_dealer.model import (
    AbandonJob,
    Act,
    Action,
    AtNeutralPlanet,
    BuiltCard,
    ChooseStart,
    CorrectKeptCard,
    DrawTechCards,
    GameEndedEarly,
    GameState,
    GiveCard,
    Goods,
    InShip,
    KeepDrawnCard,
    LaunchRocket,
    MasterClockExpired,
    MoveShip,
    OnProbe,
    Phase,
    PlaceBuiltCard,
    PlayCard,
    PlayerState,
    ReturnGoods,
    RevealOrder,
    Sabotage,
    SatisfyOrder,
    Ship,
    StartJob,
    TakeDepot,
    TakeMines,
    TechCardsShown,
    TechStack,
    TimerRanOut,
    TimerStatus,
    TradeCards,
    TransferGoods,
)
from companion.games.space_dealer.scoring import SatisfiedOrder
from companion.games.space_dealer.words import (
    card_face_text,
    colours_text,
    order_text,
    type_text,
)
from companion.rules.outcome import Accepted, Rejected, checked, refuse
from companion.rules.text import Text, text

Result = Accepted[GameState] | Rejected

# the queries the pages and the tests use, where the rules keep them
final_score = B.final_score
planning_capacity = B.planning_capacity
timer_limit = B.timer_limit
energised_units = B.energised_units
site_problem = B.site_problem

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
    elif isinstance(action, TechCardsShown):
        state, events = _shown(state, action)
    else:
        refuse(text("Unknown action {action}", action=type(action).__name__), R_JOB)
    return Accepted(state, tuple(events))


# --- free actions with cards ----------------------------------------------------------


def _play_card(state: GameState, player: str, a: PlayCard) -> Stepped:
    """Put a card from the personal stack into a free space of the planning area (3.1)."""
    running(state)
    p = known(state, player)
    if a.card not in p.stack:
        refuse(text("That card is not in your personal technology stack"), R_PLAY)
    if len(p.planning) >= B.planning_capacity(state, p):
        refuse(text("Your planning area has no free space"), R_PLAY)
    p = replace(p, stack=tuple(c for c in p.stack if c != a.card), planning=p.planning + (a.card,))
    return state.with_player(p), [CardPlanned(p.name, a.card)]


def stack_name(level: int) -> Text:
    return text("the TechLevel {level} stack", level=level)


def _taken(state: GameState, card_id: str, level: int) -> TechStack:
    """The TechLevel ``level`` stack without ``card_id``; refused when the stack cannot hold it."""
    card = state.cards.get(card_id)
    pile = stack_name(level)
    if card is None:
        refuse(text("There is no {item} left in {pile}", item=card_id, pile=pile), R_TABLE)
    return state.stack(level).take(
        card, pile=pile, card_name=card_face_text(state, card_id), type_name=type_text(card.type)
    )


def _draw(state: GameState, player: str, a: DrawTechCards) -> Stepped:
    """Draw two cards of a common stack the technology level allows, to keep one (3.2.1)."""
    running(state)
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
    if not len(state.stack(a.level)):
        refuse(text("The TechLevel {level} stack is empty", level=a.level), R_TECH)
    state = state.with_player(replace(p, pending_draw=(a.level, ()), kept=None))
    return state, [CardsDrawn(p.name, a.level)]


def _shown(state: GameState, a: TechCardsShown) -> Stepped:
    """Hub deck: the cards the player's draw turns up, from the hub's own shuffle (3.2.1)."""
    p = known(state, a.player)
    if p.pending_draw is None or p.pending_draw[1]:
        refuse(text("You have not drawn any cards to choose from"), R_TECH)
    level = p.pending_draw[0]
    stack = state.stack(level)
    if len(a.cards) != min(2, len(stack)) or len(set(a.cards)) != len(a.cards):
        refuse(text("A draw turns up the top two cards of the stack"), R_TECH)
    left = stack
    for card in a.cards:  # every card shown must be in the stack (two of one type only if it holds two)
        left = _taken(state.with_stack(left), card, level)
    return state.with_player(replace(p, pending_draw=(level, a.cards))), [CardsShown(p.name, a.cards)]


def _keep(state: GameState, player: str, a: KeepDrawnCard) -> Stepped:
    """Keep one drawn card in the planning area; the other goes under its stack (3.2.1). At a table deck
    the player names the card kept: the stack must still be able to hold it."""
    running(state)
    p = known(state, player)
    if p.pending_draw is None:
        refuse(text("You have not drawn any cards to choose from"), R_TECH)
    level, shown = p.pending_draw
    if shown and a.card not in shown:
        refuse(text("Keep one of the two cards you drew"), R_TECH)
    if len(p.planning) >= B.planning_capacity(state, p):
        refuse(text("Your planning area has no free space"), R_PLAY)
    state = state.with_stack(_taken(state, a.card, level))
    back = tuple(c for c in shown if c != a.card)
    kept = None if shown else a.card
    state = state.with_player(replace(p, pending_draw=None, planning=p.planning + (a.card,), kept=kept))
    return state, [CardKept(p.name, a.card, back)]


def _correct_kept(state: GameState, player: str, a: CorrectKeptCard) -> Stepped:
    """The card the table said was kept is really ``a.card``: swapped while it lies untouched (3.2.1)."""
    running(state)
    p = known(state, player)
    if p.kept is None or p.kept not in p.planning:
        refuse(text("There is no kept card to correct: it has left your planning area"), R_TECH)
    if B.card_busy(state, p.kept):
        refuse(text("A timer stands on that card"), R_TECH)
    if a.card == p.kept:
        refuse(text("That is the card the hub has already"), R_TECH)
    level = state.card_type(p.kept).level
    state = state.with_stack(state.stack(level).put(state.cards[p.kept]))
    state = state.with_stack(_taken(state, a.card, level))
    planning = tuple(a.card if c == p.kept else c for c in p.planning)
    state = state.with_player(replace(p, planning=planning, kept=a.card))
    return state, [KeptCardCorrected(p.name, p.kept, a.card)]


def _give(state: GameState, player: str, a: GiveCard) -> Stepped:
    """Give a planned card to a player with free planning space (5.2)."""
    running(state)
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
    running(state)
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
    running(state)
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
    running(state)
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
    running(state)
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
    """Take a neutral planet's order card; the planet waits for the next one to be turned up (5.3)."""
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
    planet = replace(neutral, order=None, awaiting=bool(len(state.orders)), redrawn=(), revealed_by="")
    return state.with_planet(planet), [OrderSatisfied(p.name, order, None, spec.points, p.markers_placed)]


def _reveal(state: GameState, player: str, a: RevealOrder) -> Stepped:
    """The order card the table turned up at a neutral planet (5.3): from what the order stack can still
    hold; while more than one player could satisfy it at once, it goes back under the stack and the table
    turns up the next (the last one turned up stays, when every card was). Named again for a face-up
    card the table entered, it corrects the entry."""
    running(state)
    known(state, player)
    planet = state.neutral_at(a.field) if isinstance(a.field, int) else None
    if planet is None:
        refuse(text("That orbital field is not a neutral planet"), R_NEUTRAL)
    spec = state.order_cards.get(a.order)
    if spec is None:
        refuse(text("There is no order card {order}", order=str(a.order)), R_TABLE)
    name = order_text(state, a.order)
    if planet.awaiting:
        if a.order in planet.redrawn:
            refuse(
                text("That order card went back under the stack: the next one comes from above it"), R_NEUTRAL
            )
        left = state.orders.take(a.order, pile=text("the order stack"), name=name)
        contested = len(_able(state, a.field, Goods.of(spec.goods_dict()))) > 1
        if contested and len(planet.redrawn) + 1 < len(state.orders):
            return state.with_planet(replace(planet, redrawn=(*planet.redrawn, a.order))), [
                OrderRedrawn(a.order, a.field)
            ]
        revealed = replace(planet, order=a.order, awaiting=False, redrawn=(), revealed_by=player)
        return replace(state.with_planet(revealed), orders=left), [OrderRevealed(a.order, a.field)]
    if planet.order is None:
        refuse(text("No order card is to be turned up at field {field}", field=a.field), R_NEUTRAL)
    if a.order == planet.order:
        refuse(text("That order card lies face up there already"), R_NEUTRAL)
    left = state.orders.put(planet.order).take(a.order, pile=text("the order stack"), name=name)
    corrected = replace(planet, order=a.order, revealed_by=player)
    return replace(state.with_planet(corrected), orders=left), [
        OrderCorrected(a.field, planet.order, a.order)
    ]


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
    running(state)
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
    running(state)
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
    ChooseStart: choose_start,
    TakeMines: take_mines,
    TakeDepot: take_depot,
    RevealOrder: _reveal,
    CorrectKeptCard: _correct_kept,
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
