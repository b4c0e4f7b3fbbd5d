"""Space Dealer's timers: a job starts with a flip and takes effect when the sand runs out (rulebook 3.2).

Part of the rules engine (:func:`~.engine.apply` hands :class:`~.model.StartJob`,
:class:`~.model.TimerRanOut`, :class:`~.model.PlaceBuiltCard` and :class:`~.model.AbandonJob` here).
Pure; a broken rule is raised with :func:`~companion.rules.outcome.refuse`.
"""

from __future__ import annotations

from dataclasses import replace

from companion.games.space_dealer import board as B
from companion.games.space_dealer.board import (
    R_BUILD,
    R_CARDS,
    R_DISCARD,
    R_END,
    R_JOB,
    R_MOVE,
    R_ROCKET,
    R_SABOTAGE,
    R_TECH,
    R_USE,
)
from companion.games.space_dealer.cards import CardType
from companion.games.space_dealer.events import (
    AttackMarkerLoaded,
    BlockCleared,
    BuildWaiting,
    CardBuilt,
    CardBuiltOver,
    CardDiscarded,
    Event,
    GameOver,
    GoodsConverted,
    GoodsLost,
    GoodsProduced,
    GoodsSent,
    JobAbandoned,
    JobFizzled,
    JobStarted,
    JobVoided,
    NeutralShipTaken,
    ShipLanded,
    ShipLaunched,
    TechLevelRaised,
    TimerAdded,
    TimerDone,
)
from companion.games.space_dealer.model import (
    NEUTRAL_SHIP_IDS,
    AbandonJob,
    BuildCard,
    BuiltCard,
    DiscardCard,
    GameState,
    Goods,
    Holder,
    InDepot,
    InShip,
    Job,
    MoveShip,
    OnProbe,
    Phase,
    PlaceBuiltCard,
    PlayerState,
    RaiseTechLevel,
    StartJob,
    Timer,
    TimerRanOut,
    TimerStatus,
    UseCard,
)
from companion.games.space_dealer.words import STATUS_TEXT, colours_text, type_text
from companion.rules.outcome import refuse
from companion.rules.text import text

Stepped = tuple[GameState, list[Event]]
"""The state after a rule and the events it caused."""


def known(state: GameState, name: str) -> PlayerState:
    """The player called ``name``; refused when nobody plays under that name."""
    p = state.player(name) if isinstance(name, str) else None
    if p is None:
        refuse(text("{player} does not play in this game", player=str(name)), B.R_SETUP)
    return p


def running(state: GameState) -> None:
    """Refuse a free action once the game has ended (4)."""
    if state.phase is not Phase.RUNNING:
        refuse(text("The game has ended; only timers that are still running complete"), R_END)


def _timer_of(p: PlayerState, index: object) -> Timer | None:
    return p.timer(index) if isinstance(index, int) and not isinstance(index, bool) else None


def _number(timer: object) -> int | str:
    """A timer as players number them (1, 2, 3; the engine counts from 0)."""
    return timer + 1 if isinstance(timer, int) and not isinstance(timer, bool) else str(timer)


def set_timer(state: GameState, name: str, timer: Timer) -> GameState:
    p = state.player(name)
    assert p is not None
    return state.with_player(
        replace(p, timers=tuple(timer if t.index == timer.index else t for t in p.timers))
    )


# --- starting a job -------------------------------------------------------------------------------


def start_job(state: GameState, a: StartJob) -> Stepped:
    """Flip an inactive timer onto a free timer space with a legal job (3.2, 3.2.1-3.2.4, 5.1)."""
    if state.phase is not Phase.RUNNING:
        refuse(text("The game has ended; no new jobs can be assigned"), R_END)
    p = known(state, a.player)
    timer = _timer_of(p, a.timer)
    if timer is None or a.timer >= B.timer_limit(state, p):
        refuse(text("You have no timer number {number}", number=_number(a.timer)), R_JOB)
    if timer.status is not TimerStatus.INACTIVE:
        refuse(
            text(
                "Timer {number} is {status}; only an inactive timer takes a job",
                number=_number(a.timer),
                status=STATUS_TEXT[timer.status],
            ),
            R_JOB,
        )
    job = a.job
    if not isinstance(job, (RaiseTechLevel, BuildCard, UseCard, MoveShip, DiscardCard)):
        refuse(text("Unknown job"), R_JOB)
    if B.space_in_use(state, B.space_of(job, p.name)):
        refuse(text("Another timer already stands on that timer space"), R_JOB)
    clears_block = False
    origin = None
    events: list[Event] = []
    if isinstance(job, RaiseTechLevel):
        if p.tech_level >= state.data.max_tech_level:
            refuse(
                text(
                    "The planet is already at the highest technology level {level}",
                    level=state.data.max_tech_level,
                ),
                R_TECH,
            )
    elif isinstance(job, BuildCard):
        if job.card not in p.planning:
            refuse(text("Only cards in your planning area can be built"), R_BUILD)
        if job.x is not None and (not isinstance(job.x, int) or isinstance(job.x, bool)):
            refuse(text("A build site is a whole-number unit beside or below the planet"), R_BUILD)
        if job.x is not None:
            B.check_site(state, p, job.card, job.x)
    elif isinstance(job, DiscardCard):
        if not state.experienced:
            refuse(text("Discarding from the planning area is a rule for experienced players"), R_DISCARD)
        if job.card not in p.planning:
            refuse(text("Only cards in your planning area can be discarded"), R_DISCARD)
    elif isinstance(job, UseCard):
        clears_block = _check_use(state, p, job)
    else:
        origin = _check_flight(state, p, job)
        ship = state.ship(job.ship)
        assert ship is not None
        state = state.with_ship(replace(ship, field=None, destination=job.to))
        events.append(ShipLaunched(p.name, ship.id, origin, job.to))
    running = replace(
        timer, status=TimerStatus.ACTIVE, job=job, clears_block=clears_block, origin=origin, sabotaged_by=None
    )
    state = set_timer(state, p.name, running)
    return state, [JobStarted(p.name, a.timer, job), *events]


def _check_flight(state: GameState, p: PlayerState, job: MoveShip) -> int:
    """The field a flight leaves from; refused unless the ship may fly there (3.2.4, 5.1c)."""
    ship = state.ship(job.ship)
    if ship is None:
        refuse(text("There is no spaceship {ship}", ship=str(job.ship)), R_MOVE)
    if ship.controller != p.name:
        refuse(
            text("You can only move a spaceship you control"),
            R_CARDS if ship.id in NEUTRAL_SHIP_IDS else R_MOVE,
        )
    if ship.field is None:
        refuse(text("That spaceship is in flight"), R_MOVE)
    if not isinstance(job.to, int) or not 0 <= job.to < state.ring_size:
        refuse(text("Orbital fields are numbered 0 to {last}", last=state.ring_size - 1), R_MOVE)
    if job.to == ship.field:
        refuse(text("The spaceship is already at that orbital field"), R_MOVE)
    distance = abs(job.to - ship.field) % state.ring_size
    distance = min(distance, state.ring_size - distance)
    if distance != 1 and ship.cargo:
        refuse(text("A spaceship with goods may only fly to a directly adjacent orbital field"), R_MOVE)
    return ship.field


def _check_use(state: GameState, p: PlayerState, job: UseCard) -> bool:
    """Refuse a timer on a card's timer space unless it can be used; True when it only clears a rocket
    block (3.2.3, 5.1)."""
    b = p.built_card(job.card)
    if b is None:
        refuse(text("A timer can only be used on a card in your action row"), R_USE)
    t = state.card_type(b.card)
    if b.covered:
        refuse(
            text(
                "The card {card} has been built over; its effect can no longer be used",
                card=type_text(t.name),
            ),
            R_BUILD,
        )
    if not t.timer:
        refuse(text("The card {card} has no timer space", card=type_text(t.name)), R_USE)
    if b.blocked_by is not None:
        return True
    colours = state.data.colours
    if t.kind == "mine" and t.colour == "any" and job.colour not in colours:
        refuse(
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
            refuse(text("Name each exchange as a pair of colours (give, take)"), R_USE)
        if not 1 <= len(pairs) <= t.exchanges:
            refuse(
                text("The card {card} exchanges 1 to {most} goods", card=type_text(t.name), most=t.exchanges),
                R_USE,
            )
        if any(g not in colours or k not in colours for g, k in job.exchanges):
            refuse(text("Name the goods colours to give and to take"), R_USE)
    if t.kind in ("sabotage", "rocket") and b.attack_markers >= state.data.attack_markers_per_card:
        refuse(
            text(
                "The card {card} already holds {count} attack marker",
                "The card {card} already holds {count} attack markers",
                card=type_text(t.name),
                count=state.data.attack_markers_per_card,
            ),
            R_SABOTAGE if t.kind == "sabotage" else R_ROCKET,
        )
    return False


# --- the sand runs out ----------------------------------------------------------------------------


def timer_ran_out(state: GameState, a: TimerRanOut) -> Stepped:
    """Apply a job when its timer runs out, unless sabotaged or clearing a rocket block (3.2, 5.1d-e)."""
    p = known(state, a.player)
    if state.phase is Phase.OVER:
        refuse(text("The game is over"), R_END)
    timer = _timer_of(p, a.timer)
    if timer is None:
        refuse(text("{player} has no timer number {number}", player=p.name, number=_number(a.timer)), R_JOB)
    if timer.status is not TimerStatus.ACTIVE or timer.job is None:
        refuse(text("Timer {number} is not running", number=_number(a.timer)), R_JOB)
    job = timer.job
    events: list[Event] = [TimerDone(p.name, a.timer)]
    done = replace(
        timer, status=TimerStatus.INACTIVE, job=None, sabotaged_by=None, clears_block=False, origin=None
    )
    if timer.sabotaged_by is not None:
        state = replace(state, attack_pool=state.attack_pool + 1)
        state = set_timer(state, p.name, done)
        events.append(JobVoided(p.name, a.timer, timer.sabotaged_by, job))
    elif timer.clears_block and isinstance(job, UseCard):
        q = state.player(p.name)
        assert q is not None
        built = tuple(replace(b, blocked_by=None) if b.card == job.card else b for b in q.built)
        state = state.with_player(replace(q, built=built))
        state = replace(state, attack_pool=state.attack_pool + 1)
        state = set_timer(state, p.name, done)
        events.append(BlockCleared(p.name, job.card))
    else:
        state = set_timer(state, p.name, done)
        state, more, keep_usable = _complete(state, p.name, job)
        events.extend(more)
        if keep_usable:
            state = set_timer(state, p.name, replace(timer, status=TimerStatus.USABLE))
    state = retire_timers(state, p.name)
    state, more = check_finished(state)
    return state, events + more


def _complete(state: GameState, name: str, job: Job) -> tuple[GameState, list[Event], bool]:
    """Apply the effect of a job whose timer ran out; True when the timer stays usable."""
    p = state.player(name)
    assert p is not None
    if isinstance(job, RaiseTechLevel):
        level = min(p.tech_level + 1, state.data.max_tech_level)
        return state.with_player(replace(p, tech_level=level)), [TechLevelRaised(name, level)], False
    if isinstance(job, BuildCard):
        if job.card not in p.planning:
            return state, [JobFizzled(name, job.card)], False
        if job.x is not None and B.site_problem(state, p, job.card, job.x) is None:
            state, events = place(state, name, job.card, job.x)
            return state, events, False
        return state, [BuildWaiting(name, job.card)], True
    if isinstance(job, DiscardCard):
        if job.card not in p.planning:
            return state, [], False
        state = state.with_player(replace(p, planning=tuple(c for c in p.planning if c != job.card)))
        return under_stack(state, name, job.card), [CardDiscarded(name, job.card)], False
    if isinstance(job, MoveShip):
        ship = state.ship(job.ship)
        if ship is None or ship.destination is None:
            return state, [], False
        state = state.with_ship(replace(ship, field=ship.destination, destination=None))
        return state, [ShipLanded(name, ship.id, ship.destination)], False
    return _use(state, name, job)


def under_stack(state: GameState, name: str, card: str) -> GameState:
    """Put a card under the stack it came from (5.1, discarding)."""
    level = state.card_type(card).level
    if level in (2, 3):
        return state.with_stack(state.stack(level).put(state.cards[card]))
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
    if first == "depot" and B.depot(state, p):
        holders.append(InDepot(name))
    elif first:
        holders.extend(InShip(s.id) for s in ships_here if s.id == first)
    if B.depot(state, p) and InDepot(name) not in holders:
        holders.append(InDepot(name))
    holders.extend(InShip(s.id) for s in ships_here if s.controller == name and InShip(s.id) not in holders)
    placed: dict[str, int] = {}
    left = goods
    for h in holders:
        room = B.holder_room(state, h)
        take: dict[str, int] = {}
        for colour, n in left.items:
            k = n if room is None else min(n, room - sum(take.values()))
            if k > 0:
                take[colour] = k
        if not take:
            continue
        bag = Goods.of(take)
        state = B.set_goods(state, h, B.holder_goods(state, h) + bag)
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
        return state, [JobFizzled(name, job.card)], False
    t = state.card_type(b.card)
    if t.kind == "mine":
        colour = state.cards[b.card].colour if t.colour == "card" else job.colour
        n = min(t.produces, state.pool.count(colour))
        state, placed, lost = _deliver(state, name, Goods.of({colour: n}), job.to)
        produced = GoodsProduced(name, b.card, colour, tuple(placed.items()), lost.total + t.produces - n)
        return state, [produced], False
    if t.kind == "converter":
        return _convert(state, name, t, job)
    if t.kind in ("sabotage", "rocket"):
        if state.attack_pool <= 0 or b.attack_markers >= state.data.attack_markers_per_card:
            return state, [JobFizzled(name, b.card, "no attack marker")], False
        built = tuple(
            replace(c, attack_markers=c.attack_markers + 1) if c.card == b.card else c for c in p.built
        )
        state = replace(state.with_player(replace(p, built=built)), attack_pool=state.attack_pool - 1)
        return state, [AttackMarkerLoaded(name, b.card, b.attack_markers + 1)], False
    if t.kind == "transport":
        ship = state.ship(job.ship or name)
        if ship is None or ship.controller != name:
            return state, [JobFizzled(name, b.card, "no spaceship")], False
        room = state.data.cargo_limit - ship.cargo.total
        take: dict[str, int] = {}
        for colour, n in b.stored.items:
            k = min(n, room - sum(take.values()))
            if k > 0:
                take[colour] = k
        bag = Goods.of(take)
        state = B.set_goods(state, OnProbe(name, b.card), b.stored - bag)
        state = B.set_goods(state, InShip(ship.id), ship.cargo + bag)
        return state, [GoodsSent(name, b.card, ship.id, bag)], False
    return state, [JobFizzled(name, b.card)], False


def _convert(state: GameState, name: str, t: CardType, job: UseCard) -> tuple[GameState, list[Event], bool]:
    """Exchange goods in the Depot or the own spaceship at the planet with the pool (3.2.3b)."""
    planet = state.planet_field(name)
    p = state.player(name)
    assert p is not None
    holder: Holder | None = None
    if job.source == "depot" or (not job.source and B.depot(state, p) is not None):
        holder = InDepot(name) if B.depot(state, p) is not None else None
    else:
        ship = state.ship(job.source or name)
        if ship is not None and ship.controller == name and ship.field == planet:
            holder = InShip(ship.id)
    done: list[tuple[str, str]] = []
    for give, take in job.exchanges[: t.exchanges]:
        if holder is None:
            break
        bag = B.holder_goods(state, holder)
        if bag.count(give) < 1:
            continue
        pool = state.pool + Goods.of({give: 1})
        if pool.count(take) < 1:
            continue
        state = B.set_goods(state, holder, bag - Goods.of({give: 1}) + Goods.of({take: 1}))
        state = replace(state, pool=pool - Goods.of({take: 1}))
        done.append((give, take))
    return state, [GoodsConverted(name, tuple(done))], False


# --- building ---------------------------------------------------------------------------------------


def place(state: GameState, name: str, card: str, x: int) -> Stepped:
    """Build a card at a valid site: cover what lies beneath, then its permanent effect (3.2.2, 5.1)."""
    p = state.player(name)
    assert p is not None
    t = state.card_type(card)
    events: list[Event] = [CardBuilt(name, card, x)]
    p = replace(p, planning=tuple(c for c in p.planning if c != card))
    if t.layout == "plant":
        side = B.PLANT_SITES[x]
        plants = list(p.plants)
        plants[side] = plants[side] + (card,)
        return state.with_player(replace(p, plants=(plants[0], plants[1]))), events
    cells = B.footprint(t, x)
    built = []
    for b in p.built:
        if b.cells & cells and not b.covered:
            state, b = _built_over(state, name, b, events)
        built.append(b)
    built.append(BuiltCard(card, x, cells))
    p = replace(p, built=tuple(built))
    state = state.with_player(p)
    if t.extra_timers and state.timer_pool > 0:
        n = min(t.extra_timers, state.timer_pool)
        p = replace(p, timers=p.timers + tuple(Timer(len(p.timers) + i) for i in range(n)))
        state = replace(state.with_player(p), timer_pool=state.timer_pool - n)
        events.append(TimerAdded(name, len(p.timers)))
    if t.kind == "station":
        free = next((s for s in state.ships if s.id in NEUTRAL_SHIP_IDS and s.controller is None), None)
        if free is not None:
            at_planet = free.field is None and free.destination is None
            field = state.planet_field(name) if at_planet else free.field
            state = state.with_ship(replace(free, controller=name, field=field))
            events.append(NeutralShipTaken(name, free.id, field))
    return retire_timers(state, name), events


def _built_over(
    state: GameState, name: str, b: BuiltCard, events: list[Event]
) -> tuple[GameState, BuiltCard]:
    """A card loses its effect under a new one: its goods and attack markers go back to the pool (3.2.2)."""
    events.append(CardBuiltOver(name, b.card))
    if b.stored:
        state = replace(state, pool=state.pool + b.stored)
        events.append(GoodsLost(name, b.card, b.stored))
    state = replace(state, attack_pool=state.attack_pool + b.attack_markers)
    if state.card_type(b.card).kind == "station":
        for s in state.ships:
            if s.id in NEUTRAL_SHIP_IDS and s.controller == name:
                state = state.with_ship(replace(s, controller=None))
                break
    return state, replace(b, covered=True, stored=Goods(), attack_markers=0)


def retire_timers(state: GameState, name: str) -> GameState:
    """Give back timers a Robot Factory no longer provides once they are inactive (5.1b)."""
    p = state.player(name)
    assert p is not None
    limit = B.timer_limit(state, p)
    timers = list(p.timers)
    while (
        len(timers) > max(limit, state.data.timers_per_player) and timers[-1].status is TimerStatus.INACTIVE
    ):
        timers.pop()
        state = replace(state, timer_pool=state.timer_pool + 1)
    if len(timers) != len(p.timers):
        state = state.with_player(replace(p, timers=tuple(timers)))
    return state


def place_built(state: GameState, player: str, a: PlaceBuiltCard) -> Stepped:
    """Put the card of a usable build timer on a valid build site; the timer becomes inactive (3.2.2)."""
    p = known(state, player)
    timer = _timer_of(p, a.timer)
    if state.phase is Phase.OVER:
        refuse(text("The game is over"), R_END)
    if timer is None or timer.status is not TimerStatus.USABLE or not isinstance(timer.job, BuildCard):
        refuse(
            text("Timer {number} has no finished build waiting for a site", number=_number(a.timer)), R_BUILD
        )
    card = timer.job.card
    if not isinstance(a.x, int) or isinstance(a.x, bool):
        refuse(text("A build site is a whole-number unit beside or below the planet"), R_BUILD)
    if card not in p.planning:
        refuse(text("That card is no longer in your planning area"), R_BUILD)
    B.check_site(state, p, card, a.x)
    state = set_timer(state, p.name, replace(timer, status=TimerStatus.INACTIVE, job=None))
    return place(state, p.name, card, a.x)


def abandon(state: GameState, player: str, a: AbandonJob) -> Stepped:
    """Give up a usable timer's job: the timer is inactive again, the card stays planned."""
    p = known(state, player)
    timer = _timer_of(p, a.timer)
    if timer is None or timer.status is not TimerStatus.USABLE:
        refuse(
            text(
                "Timer {number} is not usable; only a finished job can be given up", number=_number(a.timer)
            ),
            R_JOB,
        )
    state = set_timer(state, p.name, replace(timer, status=TimerStatus.INACTIVE, job=None))
    return retire_timers(state, p.name), [JobAbandoned(p.name, a.timer)]


# --- the end ------------------------------------------------------------------------------------------


def check_finished(state: GameState) -> Stepped:
    """Once the game has ended and no timer runs any more, it is over and scored (4)."""
    running = any(t.status is TimerStatus.ACTIVE for p in state.players for t in p.timers)
    if state.phase is Phase.ENDING and not running:
        return replace(state, phase=Phase.OVER), [GameOver(B.final_score(state))]
    return state, []
