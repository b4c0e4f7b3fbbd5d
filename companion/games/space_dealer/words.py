"""Space Dealer in words: goods, cards, jobs, timers and the engine's events, as the pages show them.

Every function returns a :class:`~companion.rules.text.Text` (a message id with its arguments),
translated where it is shown; names of players and numbers are arguments, shown as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from companion.games.space_dealer import actions as A
from companion.games.space_dealer.engine import EARLY_END, NEUTRAL_SHIP_IDS
from companion.games.space_dealer.names import colour_text, side_text, type_text
from companion.games.space_dealer.state import GameState, Goods, PlayerState, Timer, TimerStatus
from companion.rules.text import Text, joined, text, verbatim

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


def job_text(game: GameState, job: A.Job | None) -> Text:
    if job is None:
        return NOTHING
    if isinstance(job, A.RaiseTechLevel):
        return text("raise the tech level")
    if isinstance(job, A.BuildCard):
        return text(
            "build {card} {site}", card=card_text(game, job.card), site=site_text(game, job.card, job.x)
        )
    if isinstance(job, A.DiscardCard):
        return text("discard {card}", card=card_text(game, job.card))
    if isinstance(job, A.MoveShip):
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


def describe(game: GameState, events: Iterable[A.Event]) -> list[Text]:
    """The engine's events in words for the dashboard."""
    out: list[Text] = []
    last_marker = ""
    for e in events:
        d, who = e.details, e.player or ""
        match e.kind:
            case "CardPlanned":
                out.append(text("{player} planned {card}", player=who, card=card_text(game, d["card"])))
            case "CardsDrawn":
                out.append(text("{player} drew 2 TechLevel {level} cards", player=who, level=d["level"]))
            case "CardKept":
                out.append(text("{player} kept {card}", player=who, card=card_text(game, d["card"])))
            case "CardBuilt":
                out.append(text("{player} built {card}", player=who, card=card_text(game, d["card"])))
            case "CardBuiltOver":
                out.append(
                    text("{player}'s {card} was built over", player=who, card=card_text(game, d["card"]))
                )
            case "CardDiscarded":
                out.append(text("{player} discarded {card}", player=who, card=card_text(game, d["card"])))
            case "CardGiven":
                out.append(
                    text(
                        "{player} gave {card} to {other}",
                        player=who,
                        card=card_text(game, d["card"]),
                        other=d["to"],
                    )
                )
            case "CardsTraded":
                out.append(
                    text(
                        "{player} traded {card} for {other}'s {theirs}",
                        player=who,
                        card=card_text(game, d["gave"]),
                        other=d["with"],
                        theirs=card_text(game, d["got"]),
                    )
                )
            case "BuildWaiting":
                out.append(
                    text(
                        "{player}'s {card} waits for a build site",
                        player=who,
                        card=card_text(game, d["card"]),
                    )
                )
            case "JobStarted":
                out.append(text("{player} timer {number} started", player=who, number=d["timer"] + 1))
            case "JobVoided":
                out.append(
                    text(
                        "{player} timer {number} ran out sabotaged by {other}: no effect",
                        player=who,
                        number=d["timer"] + 1,
                        other=d["by"],
                    )
                )
            case "JobAbandoned":
                out.append(
                    text("{player} gave up the job of timer {number}", player=who, number=d["timer"] + 1)
                )
            case "JobFizzled":
                out.append(_fizzled(game, who, d))
            case "TimerAdded":
                out.append(text("{player} now has {timers} timers", player=who, timers=d["timers"]))
            case "ShipLaunched":
                out.append(
                    text(
                        "{ship} left field {start} for field {end}",
                        ship=spaceship_text(d["ship"]),
                        start=d["from"],
                        end=d["to"],
                    )
                )
            case "ShipLanded":
                out.append(
                    text(
                        "{ship} landed at {field}",
                        ship=spaceship_text(d["ship"]),
                        field=field_text(game, d["field"]),
                    )
                )
            case "ShipRecalled":
                out.append(text("the flight of {ship} was called off", ship=spaceship_text(d["ship"])))
            case "NeutralShipTaken":
                out.append(text("{player} took the neutral spaceship", player=who))
            case "TechLevelRaised":
                out.append(text("{player} reached tech level {level}", player=who, level=d["level"]))
            case "GoodsProduced":
                colour = colour_text(d["colour"])
                if d.get("lost"):
                    out.append(
                        text(
                            "{player} produced {colour} ({count} lost)",
                            "{player} produced {colour} ({count} lost)",
                            player=who,
                            colour=colour,
                            count=d["lost"],
                        )
                    )
                else:
                    out.append(text("{player} produced {colour}", player=who, colour=colour))
            case "GoodsConverted":
                swaps = [
                    text("{give} to {take}", give=colour_text(g), take=colour_text(t))
                    for g, t in d["exchanges"]
                ]
                out.append(
                    text(
                        "{player} converted {goods}",
                        player=who,
                        goods=listed(swaps) if swaps else text("nothing"),
                    )
                )
            case "GoodsSent":
                out.append(
                    text(
                        "{player}'s Transport Probe sent {goods}",
                        player=who,
                        goods=goods_text(Goods.of(d["goods"])),
                    )
                )
            case "GoodsTransferred":
                out.append(text("{player} moved {goods}", player=who, goods=goods_text(Goods.of(d["goods"]))))
            case "GoodsReturned":
                out.append(
                    text(
                        "{player} returned {goods} to the pool",
                        player=who,
                        goods=goods_text(Goods.of(d["goods"])),
                    )
                )
            case "GoodsLost":
                out.append(text("{player} lost {goods}", player=who, goods=goods_text(Goods.of(d["goods"]))))
            case "OrderSatisfied":
                if d.get("owner"):
                    out.append(
                        text(
                            "{player} satisfied an order at {owner}'s planet (+{points})",
                            player=who,
                            owner=d["owner"],
                            points=d["points"][0],
                        )
                    )
                else:
                    out.append(
                        text(
                            "{player} satisfied an order at a neutral planet (+{points})",
                            player=who,
                            points=d["points"][0],
                        )
                    )
                if d.get("markers", 0) >= game.data.placeable_markers:
                    last_marker = who
            case "OrderRevealed":
                out.append(
                    text(
                        "new order at field {field}: {order}",
                        field=d["field"],
                        order=order_text(game, d["order"]),
                    )
                )
            case "TimerSabotaged":
                out.append(
                    text(
                        "{player} sabotaged {other}'s timer {number}",
                        player=who,
                        other=d["target"],
                        number=d["timer"] + 1,
                    )
                )
            case "SpaceBlocked":
                out.append(
                    text(
                        "{player}'s rocket blocks {other}'s {card}",
                        player=who,
                        other=d["target"],
                        card=card_text(game, d["card"]),
                    )
                )
            case "BlockCleared":
                out.append(
                    text(
                        "{player} cleared the rocket block on {card}",
                        player=who,
                        card=card_text(game, d["card"]),
                    )
                )
            case "AttackMarkerLoaded":
                out.append(
                    text(
                        "{player} loaded an attack marker on {card}",
                        player=who,
                        card=card_text(game, d["card"]),
                    )
                )
            case "GameEnded":
                out.append(_ended(game, d.get("reason"), last_marker))
            case "GameOver":
                out.append(text("game over: every timer has run out"))
            case "TimerRanOut" | "OrderRedrawn":
                pass
            case _:
                out.append(text("{player}: {event}", player=who, event=e.kind))
    return out


def _fizzled(game: GameState, who: str, d: dict[str, object]) -> Text:
    """A job that had no effect; why, from the card it ran on (the fact keeps the engine's English)."""
    card = d.get("card")
    if d.get("why") and isinstance(card, str) and card in game.cards:
        kind = game.card_type(card).kind
        if kind in ("sabotage", "rocket"):
            return text("{player}'s job had no effect (no attack marker left in the pool)", player=who)
        if kind == "transport":
            return text("{player}'s job had no effect (no spaceship of yours)", player=who)
    return text("{player}'s job had no effect", player=who)


def _ended(game: GameState, reason: object, last_marker: str) -> Text:
    """Why the game ended: the host, a player's last victory-point marker, or the clock (rulebook 4)."""
    if reason == EARLY_END:
        return text("the game ends: the host ended it early, it is scored as it stands")
    if last_marker:
        return text("the game ends: {player} placed their last victory-point marker", player=last_marker)
    return text("the game ends: the {minutes} minutes are over", minutes=game.data.game_minutes)


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
