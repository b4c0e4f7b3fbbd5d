"""Space Dealer in words: goods, cards, jobs, timers and the engine's events, as the pages show them.

The card data (``cards.toml``) names card types and colours in English; the pages show them through
the texts of this module, so a Spanish or German table reads its own words (a name the data adds and
this module does not know is shown as it is written in the data file). Every function returns a
:class:`~companion.rules.text.Text` (a message id with its arguments), translated where it is shown;
names of players and numbers are arguments, shown as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from companion.games.space_dealer import events as E
from companion.games.space_dealer import model as M
from companion.games.space_dealer.model import (
    NEUTRAL_SHIP_IDS,
    GameState,
    Goods,
    Phase,
    PlayerState,
    Timer,
    TimerStatus,
)
from companion.rules.text import Text, joined, text, verbatim

COLOURS: dict[str, Text] = {
    "red": text("red"),
    "yellow": text("yellow"),
    "blue": text("blue"),
    "green": text("green"),
}
"""The four goods colours of the box (cards.toml, ``box.goods_colours``)."""

CARD_TYPES: dict[str, Text] = {
    "Mine": text("Mine"),
    "Generator": text("Generator"),
    "Depot": text("Depot"),
    "Solar Satellite": text("Solar Satellite"),
    "Fusion Reactor": text("Fusion Reactor"),
    "Mining Complex": text("Mining Complex"),
    "Multi-Mine": text("Multi-Mine"),
    "Fusion Mine": text("Fusion Mine"),
    "Converter": text("Converter"),
    "Fusion Converter": text("Fusion Converter"),
    "Metropolis": text("Metropolis"),
    "Megacity": text("Megacity"),
    "TechCenter": text("TechCenter"),
    "Robot Factory": text("Robot Factory"),
    "Orbital Station": text("Orbital Station"),
    "Sabotage Probe": text("Sabotage Probe"),
    "Interstellar Rocket": text("Interstellar Rocket"),
    "Transport Probe": text("Transport Probe"),
}
"""The technology cards by the English names of cards.toml (rulebook, "Card Terminology")."""

SIDES: dict[str, Text] = {"left": text("left"), "right": text("right")}
"""The two sides of the planet a power plant stands on (rulebook 3.2.2a)."""

STATUS_TEXT: dict[TimerStatus, Text] = {
    TimerStatus.INACTIVE: text("inactive"),
    TimerStatus.ACTIVE: text("active"),
    TimerStatus.USABLE: text("usable"),
}
"""The three positions of a timer (rulebook 2)."""

PHASE_TEXT: dict[Phase, Text] = {
    Phase.RUNNING: text("running"),
    Phase.ENDING: text("ended: running timers complete"),
    Phase.OVER: text("game over"),
}
"""The game's phases, for the summary line."""


def colour_text(colour: str) -> Text:
    """A goods colour in words ("red")."""
    return COLOURS.get(colour) or verbatim(colour)


def colours_text(colours: tuple[str, ...] | list[str]) -> tuple[Text, ...]:
    """Several colours, as a list argument (shown "red, yellow and blue")."""
    return tuple(colour_text(c) for c in colours)


def type_text(card_type: str) -> Text:
    """A technology card's name ("Robot Factory")."""
    return CARD_TYPES.get(card_type) or verbatim(card_type)


def side_text(side: str) -> Text:
    """``left`` or ``right`` of the planet."""
    return SIDES.get(side) or verbatim(side)


NOTHING = verbatim("-")
"""An empty table cell."""


def listed(items: Sequence[Text | str], separator: str = ", ") -> Text:
    """Several texts or names in a row ("red, neutral spaceship"); "-" when there are none."""
    parts = [i if isinstance(i, Text) else verbatim(i) for i in items]
    return joined(parts, separator) if parts else NOTHING


def goods_text(goods: Goods) -> Text:
    """ "1 red, 2 blue", or "none"."""
    if not goods:
        return text("none")
    return listed([text("{n} {colour}", n=n, colour=colour_text(c)) for c, n in goods.items])


def ship_text(ship: str) -> Text:
    """A spaceship: its owner's name, or the neutral spaceship (5.1c)."""
    if ship == NEUTRAL_SHIP_IDS[0]:
        return text("neutral spaceship")
    if ship in NEUTRAL_SHIP_IDS:
        return text("neutral spaceship {number}", number=NEUTRAL_SHIP_IDS.index(ship) + 1)
    return verbatim(ship)


def spaceship_text(ship: str) -> Text:
    """A spaceship in a sentence: "red's spaceship", "the neutral spaceship"."""
    if ship in NEUTRAL_SHIP_IDS:
        return ship_text(ship)
    return text("{player}'s spaceship", player=ship)


def card_text(game: GameState, card: str) -> Text:
    """ "red Mine", "Robot Factory"."""
    c = game.cards.get(card)
    if c is None:
        return verbatim(card)
    name = type_text(c.type)
    return text("{colour} {card}", colour=colour_text(c.colour), card=name) if c.colour else name


def card_face_text(game: GameState, card: str) -> Text:
    """A card as the table tells it apart: its name, and the order printed on it ("red Mining Complex
    (red+blue for 3/1)")."""
    c = game.cards.get(card)
    if c is None or c.order is None:
        return card_text(game, card)
    return text("{card} ({order})", card=card_text(game, card), order=order_text(game, card))


def order_text(game: GameState, card: str) -> Text:
    """ "red+blue for 3/1"."""
    spec = game.order_cards.get(card)
    if spec is None:
        c = game.cards.get(card)
        spec = c.order if c is not None else None
    if spec is None:
        return NOTHING
    want = listed(
        [
            text("{n} {colour}", n=n, colour=colour_text(c)) if n > 1 else colour_text(c)
            for c, n in spec.goods
        ],
        "+",
    )
    return text("{goods} for {points}", goods=want, points="/".join(str(p) for p in spec.points))


def field_text(game: GameState, field: int | None) -> Text:
    if field is None:
        return text("in flight")
    owner = game.field_owner(field)
    if owner:
        return text("field {field} ({player}'s planet)", field=field, player=owner)
    return text("field {field} (neutral planet)", field=field)


def site_text(game: GameState, card: str, x: int | None) -> Text:
    if x is None:
        return text("(site chosen later)")
    if game.card_type(card).layout == "plant":
        return text("left of the planet") if x < 0 else text("right of the planet")
    return text("at unit {x}", x=x)


def job_text(game: GameState, job: M.Job | None) -> Text:
    if job is None:
        return NOTHING
    if isinstance(job, M.RaiseTechLevel):
        return text("raise the tech level")
    if isinstance(job, M.BuildCard):
        return text(
            "build {card} {site}", card=card_text(game, job.card), site=site_text(game, job.card, job.x)
        )
    if isinstance(job, M.DiscardCard):
        return text("discard {card}", card=card_text(game, job.card))
    if isinstance(job, M.MoveShip):
        if job.ship in NEUTRAL_SHIP_IDS:
            return text("fly the neutral spaceship to {field}", field=field_text(game, job.to))
        return text("fly the spaceship to {field}", field=field_text(game, job.to))
    details: list[Text] = []
    if job.colour:
        details.append(colour_text(job.colour))
    details += [text("{give} for {take}", give=colour_text(g), take=colour_text(t)) for g, t in job.exchanges]
    if details:
        return text("use {card} ({details})", card=card_text(game, job.card), details=listed(details))
    return text("use {card}", card=card_text(game, job.card))


def timer_text(game: GameState, timer: Timer) -> Text:
    if timer.status is TimerStatus.INACTIVE:
        return text("free")
    job = job_text(game, timer.job)
    if timer.status is TimerStatus.USABLE:
        return text("done: {job}, choose a build site", job=job)
    if timer.sabotaged_by:
        return text("running: {job} \u00b7 SABOTAGED by {player}", job=job, player=timer.sabotaged_by)
    if timer.clears_block:
        return text("running: {job} \u00b7 only clears the rocket block", job=job)
    return text("running: {job}", job=job)


def describe(game: GameState, events: Iterable[E.Event]) -> list[Text]:
    """The engine's events in words for the dashboard (a timer running out and a re-drawn order say
    nothing of their own)."""
    out: list[Text] = []
    for e in events:
        line = _event_text(game, e)
        if line is not None:
            out.append(line)
    return out


def _event_text(game: GameState, e: E.Event) -> Text | None:  # noqa: C901 - one line per kind of event
    match e:
        case E.CardPlanned(player=who, card=card):
            return text("{player} planned {card}", player=who, card=card_text(game, card))
        case E.CardsDrawn(player=who, level=level):
            return text("{player} drew 2 TechLevel {level} cards", player=who, level=level)
        case E.KeptCardCorrected(player=who, card=card):
            return text("{player} corrected the card kept: {card}", player=who, card=card_text(game, card))
        case E.MinesTaken(player=who):
            return text("{player} told the hub their Mines", player=who)
        case E.DepotTaken(player=who):
            return text("{player} told the hub their Depot", player=who)
        case E.OrderCorrected(field=field, order=order):
            return text(
                "order at field {field} corrected: {order}", field=field, order=order_text(game, order)
            )
        case E.CardKept(player=who, card=card):
            return text("{player} kept {card}", player=who, card=card_text(game, card))
        case E.StartChosen(player=who):
            return text("{player} chose where to start", player=who)
        case E.CardBuilt(player=who, card=card):
            return text("{player} built {card}", player=who, card=card_text(game, card))
        case E.CardBuiltOver(player=who, card=card):
            return text("{player}'s {card} was built over", player=who, card=card_text(game, card))
        case E.CardDiscarded(player=who, card=card):
            return text("{player} discarded {card}", player=who, card=card_text(game, card))
        case E.CardGiven(player=who, card=card, to=to):
            return text("{player} gave {card} to {other}", player=who, card=card_text(game, card), other=to)
        case E.CardsTraded(player=who, gave=gave, got=got, other=other):
            return text(
                "{player} traded {card} for {other}'s {theirs}",
                player=who,
                card=card_text(game, gave),
                other=other,
                theirs=card_text(game, got),
            )
        case E.BuildWaiting(player=who, card=card):
            return text("{player}'s {card} waits for a build site", player=who, card=card_text(game, card))
        case E.JobStarted(player=who, timer=timer):
            return text("{player} timer {number} started", player=who, number=timer + 1)
        case E.JobVoided(player=who, timer=timer, by=by):
            return text(
                "{player} timer {number} ran out sabotaged by {other}: no effect",
                player=who,
                number=timer + 1,
                other=by,
            )
        case E.JobAbandoned(player=who, timer=timer):
            return text("{player} gave up the job of timer {number}", player=who, number=timer + 1)
        case E.JobFizzled(player=who, why=why):
            if why == "no attack marker":
                return text("{player}'s job had no effect (no attack marker left in the pool)", player=who)
            if why == "no spaceship":
                return text("{player}'s job had no effect (no spaceship of yours)", player=who)
            return text("{player}'s job had no effect", player=who)
        case E.TimerAdded(player=who, timers=timers):
            return text("{player} now has {timers} timers", player=who, timers=timers)
        case E.ShipLaunched(ship=ship, origin=origin, to=to):
            return text(
                "{ship} left field {start} for field {end}", ship=spaceship_text(ship), start=origin, end=to
            )
        case E.ShipLanded(ship=ship, field=field):
            return text("{ship} landed at {field}", ship=spaceship_text(ship), field=field_text(game, field))
        case E.ShipRecalled(ship=ship):
            return text("the flight of {ship} was called off", ship=spaceship_text(ship))
        case E.NeutralShipTaken(player=who):
            return text("{player} took the neutral spaceship", player=who)
        case E.TechLevelRaised(player=who, level=level):
            return text("{player} reached tech level {level}", player=who, level=level)
        case E.GoodsProduced(player=who, colour=colour, lost=lost):
            if lost:
                return text(
                    "{player} produced {colour} ({count} lost)",
                    "{player} produced {colour} ({count} lost)",
                    player=who,
                    colour=colour_text(colour),
                    count=lost,
                )
            return text("{player} produced {colour}", player=who, colour=colour_text(colour))
        case E.GoodsConverted(player=who, exchanges=exchanges):
            swaps = [text("{give} to {take}", give=colour_text(g), take=colour_text(t)) for g, t in exchanges]
            return text(
                "{player} converted {goods}", player=who, goods=listed(swaps) if swaps else text("nothing")
            )
        case E.GoodsSent(player=who, goods=goods):
            return text("{player}'s Transport Probe sent {goods}", player=who, goods=goods_text(goods))
        case E.GoodsTransferred(player=who, goods=goods):
            return text("{player} moved {goods}", player=who, goods=goods_text(goods))
        case E.GoodsReturned(player=who, goods=goods):
            return text("{player} returned {goods} to the pool", player=who, goods=goods_text(goods))
        case E.GoodsLost(player=who, goods=goods):
            return text("{player} lost {goods}", player=who, goods=goods_text(goods))
        case E.OrderSatisfied(player=who, owner=owner, points=points):
            if owner:
                return text(
                    "{player} satisfied an order at {owner}'s planet (+{points})",
                    player=who,
                    owner=owner,
                    points=points[0],
                )
            return text(
                "{player} satisfied an order at a neutral planet (+{points})", player=who, points=points[0]
            )
        case E.OrderRevealed(order=order, field=field):
            return text("new order at field {field}: {order}", field=field, order=order_text(game, order))
        case E.TimerSabotaged(player=who, target=target, timer=timer):
            return text(
                "{player} sabotaged {other}'s timer {number}", player=who, other=target, number=timer + 1
            )
        case E.SpaceBlocked(player=who, target=target, card=card):
            return text(
                "{player}'s rocket blocks {other}'s {card}",
                player=who,
                other=target,
                card=card_text(game, card),
            )
        case E.BlockCleared(player=who, card=card):
            return text("{player} cleared the rocket block on {card}", player=who, card=card_text(game, card))
        case E.AttackMarkerLoaded(player=who, card=card):
            return text("{player} loaded an attack marker on {card}", player=who, card=card_text(game, card))
        case E.GameEnded(by="host"):
            return text("the game ends: the host ended it early, it is scored as it stands")
        case E.GameEnded(by="marker", player=who):
            return text("the game ends: {player} placed their last victory-point marker", player=who)
        case E.GameEnded():
            return text("the game ends: the {minutes} minutes are over", minutes=game.data.game_minutes)
        case E.GameOver():
            return text("game over: every timer has run out")
    return None


def built_text(game: GameState, p: PlayerState) -> list[Text]:
    """A planet in words: the power plants on each side, then the built cards by unit with their state."""
    parts: list[Text] = []
    for side, stack in zip(("left", "right"), p.plants, strict=True):
        if stack:
            plants = listed([card_text(game, c) for c in stack], " > ")
            parts.append(text("{side}: {cards}", side=side_text(side), cards=plants))
    for b in sorted(p.built, key=lambda b: b.x):
        card = card_text(game, b.card)
        flags: list[Text] = []
        if b.covered:
            flags.append(text("built over"))
        if b.blocked_by:
            flags.append(text("BLOCKED by {player}'s rocket", player=b.blocked_by))
        if b.attack_markers:
            flags.append(text("{count} attack marker", "{count} attack markers", count=b.attack_markers))
        if b.stored:
            flags.append(goods_text(b.stored))
        if game.cards[b.card].order is not None:
            order = order_text(game, b.card)
            done = any(o.order == b.card for o in game.satisfied)
            flags.append(
                text("order {order} done", order=order) if done else text("order {order}", order=order)
            )
        if flags:
            parts.append(text("{card} at {x} ({flags})", card=card, x=b.x, flags=listed(flags, "; ")))
        else:
            parts.append(text("{card} at {x}", card=card, x=b.x))
    return parts or [NOTHING]
