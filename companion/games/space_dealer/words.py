"""Space Dealer in words: goods, cards, jobs, timers and the engine's events, as the pages show them."""

from __future__ import annotations

from collections.abc import Iterable

from companion.games.space_dealer import actions as A
from companion.games.space_dealer.engine import NEUTRAL_SHIP_IDS
from companion.games.space_dealer.state import GameState, Goods, Phase, PlayerState, Timer, TimerStatus

PHASE_TEXT = {
    Phase.RUNNING: "running",
    Phase.ENDING: "ended: running timers complete",
    Phase.OVER: "game over",
}


def goods_text(goods: Goods) -> str:
    return ", ".join(f"{n} {c}" for c, n in goods.items) or "none"


def card_text(game: GameState, card: str) -> str:
    """ "red Mine", "Robot Factory"."""
    c = game.cards.get(card)
    if c is None:
        return card
    return f"{c.colour} {c.type}" if c.colour else c.type


def order_text(game: GameState, card: str) -> str:
    """ "red+blue for 3/1"."""
    spec = game.order_cards.get(card)
    if spec is None:
        c = game.cards.get(card)
        spec = c.order if c is not None else None
    if spec is None:
        return "-"
    want = "+".join(f"{n} {c}" if n > 1 else c for c, n in spec.goods)
    return f"{want} for {'/'.join(str(p) for p in spec.points)}"


def field_text(game: GameState, field: int | None) -> str:
    if field is None:
        return "in flight"
    owner = game.field_owner(field)
    return f"field {field} ({owner}'s planet)" if owner else f"field {field} (neutral planet)"


def site_text(game: GameState, card: str, x: int | None) -> str:
    if x is None:
        return "(site chosen later)"
    if game.card_type(card).layout == "plant":
        return "left of the planet" if x < 0 else "right of the planet"
    return f"at unit {x}"


def job_text(game: GameState, job: A.Job | None) -> str:
    if job is None:
        return "-"
    if isinstance(job, A.RaiseTechLevel):
        return "raise the tech level"
    if isinstance(job, A.BuildCard):
        return f"build {card_text(game, job.card)} {site_text(game, job.card, job.x)}"
    if isinstance(job, A.DiscardCard):
        return f"discard {card_text(game, job.card)}"
    if isinstance(job, A.MoveShip):
        ship = "spaceship" if job.ship not in NEUTRAL_SHIP_IDS else "neutral spaceship"
        return f"fly the {ship} to {field_text(game, job.to)}"
    text = f"use {card_text(game, job.card)}"
    if job.colour:
        text += f" ({job.colour})"
    if job.exchanges:
        text += " (" + ", ".join(f"{g} for {t}" for g, t in job.exchanges) + ")"
    return text


def timer_text(game: GameState, timer: Timer) -> str:
    if timer.status is TimerStatus.INACTIVE:
        return "free"
    if timer.status is TimerStatus.USABLE:
        return f"done: {job_text(game, timer.job)}, choose a build site"
    text = f"running: {job_text(game, timer.job)}"
    if timer.sabotaged_by:
        text += f" \u00b7 SABOTAGED by {timer.sabotaged_by}"
    elif timer.clears_block:
        text += " \u00b7 only clears the rocket block"
    return text


def describe(game: GameState, events: Iterable[A.Event]) -> list[str]:
    """The engine's events in words for the dashboard."""
    out: list[str] = []
    for e in events:
        d, who = e.details, e.player or ""
        match e.kind:
            case "CardPlanned":
                out.append(f"{who} planned {card_text(game, d['card'])}")
            case "CardsDrawn":
                out.append(f"{who} drew 2 TechLevel {d['level']} cards")
            case "CardKept":
                out.append(f"{who} kept {card_text(game, d['card'])}")
            case "CardBuilt":
                out.append(f"{who} built {card_text(game, d['card'])}")
            case "CardBuiltOver":
                out.append(f"{who}'s {card_text(game, d['card'])} was built over")
            case "CardDiscarded":
                out.append(f"{who} discarded {card_text(game, d['card'])}")
            case "CardGiven":
                out.append(f"{who} gave {card_text(game, d['card'])} to {d['to']}")
            case "CardsTraded":
                out.append(
                    f"{who} traded {card_text(game, d['gave'])} for {d['with']}'s {card_text(game, d['got'])}"
                )
            case "BuildWaiting":
                out.append(f"{who}'s {card_text(game, d['card'])} waits for a build site")
            case "JobStarted":
                out.append(f"{who} timer {d['timer'] + 1} started")
            case "JobVoided":
                out.append(f"{who} timer {d['timer'] + 1} ran out sabotaged by {d['by']}: no effect")
            case "JobAbandoned":
                out.append(f"{who} gave up the job of timer {d['timer'] + 1}")
            case "JobFizzled":
                out.append(f"{who}'s job had no effect" + (f" ({d['why']})" if d.get("why") else ""))
            case "TimerAdded":
                out.append(f"{who} now has {d['timers']} timers")
            case "ShipLaunched":
                out.append(f"{d['ship']} spaceship left field {d['from']} for field {d['to']}")
            case "ShipLanded":
                out.append(f"{d['ship']} spaceship landed at {field_text(game, d['field'])}")
            case "ShipRecalled":
                out.append(f"{d['ship']} spaceship's flight was called off")
            case "NeutralShipTaken":
                out.append(f"{who} took the neutral spaceship")
            case "TechLevelRaised":
                out.append(f"{who} reached tech level {d['level']}")
            case "GoodsProduced":
                out.append(
                    f"{who} produced {d['colour']}" + (f" ({d['lost']} lost)" if d.get("lost") else "")
                )
            case "GoodsConverted":
                out.append(
                    f"{who} converted " + (", ".join(f"{g} to {t}" for g, t in d["exchanges"]) or "nothing")
                )
            case "GoodsSent":
                out.append(f"{who}'s Transport Probe sent {goods_text(Goods.of(d['goods']))}")
            case "GoodsTransferred":
                out.append(f"{who} moved {goods_text(Goods.of(d['goods']))}")
            case "GoodsReturned":
                out.append(f"{who} returned {goods_text(Goods.of(d['goods']))} to the pool")
            case "GoodsLost":
                out.append(f"{who} lost {goods_text(Goods.of(d['goods']))}")
            case "OrderSatisfied":
                where = f"{d['owner']}'s planet" if d.get("owner") else "a neutral planet"
                out.append(f"{who} satisfied an order at {where} (+{d['points'][0]})")
            case "OrderRevealed":
                out.append(f"new order at field {d['field']}: {order_text(game, d['order'])}")
            case "TimerSabotaged":
                out.append(f"{who} sabotaged {d['target']}'s timer {d['timer'] + 1}")
            case "SpaceBlocked":
                out.append(f"{who}'s rocket blocks {d['target']}'s {card_text(game, d['card'])}")
            case "BlockCleared":
                out.append(f"{who} cleared the rocket block on {card_text(game, d['card'])}")
            case "AttackMarkerLoaded":
                out.append(f"{who} loaded an attack marker on {card_text(game, d['card'])}")
            case "GameEnded":
                out.append(f"the game ends: {d['reason']}")
            case "GameOver":
                out.append("game over: every timer has run out")
            case "TimerRanOut" | "OrderRedrawn":
                pass
            case _:
                out.append(f"{who}: {e.kind}")
    return out


def built_text(game: GameState, p: PlayerState) -> list[str]:
    """A planet in words: the power plants on each side, then the built cards by unit with their state."""
    parts = []
    for side, stack in zip(("left", "right"), p.plants, strict=True):
        if stack:
            parts.append(f"{side}: {' > '.join(card_text(game, c) for c in stack)}")
    for b in sorted(p.built, key=lambda b: b.x):
        text = f"{card_text(game, b.card)} at {b.x}"
        flags = []
        if b.covered:
            flags.append("built over")
        if b.blocked_by:
            flags.append(f"BLOCKED by {b.blocked_by}'s rocket")
        if b.attack_markers:
            flags.append(f"{b.attack_markers} attack marker(s)")
        if b.stored:
            flags.append(goods_text(b.stored))
        if game.cards[b.card].order is not None:
            done = any(o.order == b.card for o in game.satisfied)
            flags.append(f"order {order_text(game, b.card)}" + (" done" if done else ""))
        parts.append(text + (f" ({'; '.join(flags)})" if flags else ""))
    return parts or ["-"]
