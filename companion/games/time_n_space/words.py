"""Time 'n' Space in the players' words: the game's terms and the rulebook's sections as message ids.

Every word a player reads or hears is a :class:`~companion.rules.text.Text` (a message id with
its arguments, see :mod:`companion.rules.text`), translated where it is shown from the catalogs
``i18n/es.json`` and ``i18n/de.json`` beside this module. Game vocabulary (colours, buildings,
places, phases) is a Text too, so a sentence naming a colour is translated whole. Ids such as
``b1`` (a building on the control center) and the roman stage numbers are shown as they are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from companion.errors import ConfigError
from companion.games.time_n_space import model as M
from companion.games.time_n_space.components import COLORS, Tile
from companion.games.time_n_space.model import (
    PHASE_ENDING,
    PHASE_OVER,
    PHASE_RUNNING,
    PHASE_SETUP,
    RESEARCH,
    SHIP,
    Building,
    GameState,
    PlayerState,
)
from companion.rules.text import Text, TextError, joined, text, verbatim

# --- the rulebook's sections, named by refusals ----------------------------------------------------

GENERAL = text("General rules for placing and using the sandtimers")
PLAYING = text("Playing the Game")
SPACESHIP = text("1. Your spaceship")
PRODUCTION = text("2. Production plant")
BEAM = text("3. Beam station")
TRADING = text("4. Trading center")
RESEARCH_RULE = text("5. Research plant")
UPGRADING = text("Upgrading stage II buildings")
END = text("End of the Game")
SCORING = text("Final Scoring")
SETUP_INTRO = text("Setup for the Introductory Game")
SETUP_FULL = text("Setup for the Full Game")
TABLE_RULE = text("Table")
"""Refusals that come from the hub table, not from the rulebook."""

# --- vocabulary ------------------------------------------------------------------------------------

COLOR_WORDS: dict[str, Text] = {
    "gray": text("gray"),
    "yellow": text("yellow"),
    "blue": text("blue"),
    "brown": text("brown"),
}
"""The four goods and order colours (rulebook: "Components")."""

BUILDING_WORDS: dict[str, Text] = {
    "production": text("production plant"),
    "beam": text("beam station"),
    "trading": text("trading center"),
}

ROMAN = {1: "I", 2: "II", 3: "III"}
"""Stages are printed as roman numerals; shown as they are in every language."""

PHASE_WORDS: dict[str, Text] = {
    PHASE_SETUP: text("waiting for the master clock"),
    PHASE_RUNNING: text("running"),
    PHASE_ENDING: text("master clock ran out: running sandtimers finish"),
    PHASE_OVER: text("game over"),
}

VARIANT_WORDS: dict[str, Text] = {
    "intro": text("introductory game"),
    "full": text("full game"),
    "light": text("light mode (timers and scoring only)"),
}

NONE = text("none")

REASON_FULL_SAND = text(
    "Let the sand run through completely before you flip this sandtimer: "
    "every sandtimer runs a full minute on its time symbol"
)
REASON_NOT_THROUGH = text("The sand on this timer has not run through yet")
REASON_NOT_STARTED = text("The sandtimers may not be flipped before the game starts")
REASON_CLOCK_OVER = text("The master clock has run out: no one may place another sandtimer")
REASON_GAME_OVER = text("The game is over: the final scoring is on the dashboard")


class SetupTextError(ConfigError, TextError):
    """A table Time 'n' Space cannot be played at (a :class:`ConfigError` whose message is a Text)."""


def color_word(color: Any) -> Text | str:
    """A colour in words; anything that is not one of the four colours is shown as it was given."""
    return COLOR_WORDS.get(color, repr(color)) if isinstance(color, str) else repr(color)


def counter_text(color: Any, value: Any) -> Text:
    """An order counter: "gray 1"."""
    return text(
        "{color} {value}", color=color_word(color), value=value if isinstance(value, int) else repr(value)
    )


def counters_text(orders: Iterable[tuple[str, int]]) -> Text:
    """Order counters as "gray 1 ×2, blue 3 ×1" (colour order, then value), or "none"."""
    counts = Counter(orders)
    if not counts:
        return NONE
    keys = sorted(counts, key=lambda k: (COLORS.index(k[0]), k[1]))
    return joined(
        [text("{counter} ×{count}", counter=counter_text(c, v), count=counts[(c, v)]) for c, v in keys], ", "
    )


def place_word(game: GameState | None, location: str) -> Text:
    """A place on the board: "red's planet" (``planet-N``) or "moon 2" (``moon-N``)."""
    kind, _, number = location.partition("-")
    if kind == "planet" and game is not None:
        owner = game.owner_of(location)
        if owner is not None:
            return text("{player}'s planet", player=owner.name)
    if kind == "planet" and number.isdigit():
        return text("planet {number}", number=int(number))
    if kind == "moon" and number.isdigit():
        return text("moon {number}", number=int(number))
    return verbatim(location)


def building_label(b: Building) -> Text:
    """A building in words: "b1 production plant I (gray)"."""
    if b.type == "production":
        colors = sorted(set(c for c in b.spec.spots if c), key=COLORS.index)
        return text(
            "{building} {kind} {stage} ({colors})",
            building=b.id,
            kind=BUILDING_WORDS[b.type],
            stage=ROMAN[b.stage],
            colors=tuple(color_word(c) for c in colors),
        )
    return text("{building} {kind} {stage}", building=b.id, kind=BUILDING_WORDS[b.type], stage=ROMAN[b.stage])


def tile_words(tile: Tile, stage: int = 2) -> Text:
    """A building tile by what is printed on it: "production plant II (gray)", "beam station II"."""
    spec = tile.stage2 if stage == 2 else tile.stage3
    if spec.type == "production":
        colors = sorted({c for c in spec.spots if c}, key=COLORS.index)
        return text(
            "{kind} {stage} ({colors})",
            kind=BUILDING_WORDS[spec.type],
            stage=ROMAN[stage],
            colors=tuple(color_word(c) for c in colors),
        )
    return text("{kind} {stage}", kind=BUILDING_WORDS[spec.type], stage=ROMAN[stage])


def symbol_name(symbol: str) -> Text:
    """A time symbol as a refusal names it: "your spaceship", "building b6"."""
    if symbol == SHIP:
        return text("your spaceship")
    if symbol == RESEARCH:
        return text("your research plant")
    return text("building {building}", building=symbol)


def symbol_label(
    game: GameState | None, player: PlayerState, symbol: str | None, destination: str | None = None
) -> Text:
    """Where a sandtimer stands, in words (e.g. "spaceship: red's planet → moon 1")."""
    if symbol is None:
        return text("in front of you")
    if symbol == SHIP:
        if destination is not None:
            return text(
                "spaceship: {origin} → {destination}",
                origin=place_word(game, player.ship),
                destination=place_word(game, destination),
            )
        return text("spaceship: stay at {place}", place=place_word(game, player.ship))
    if symbol == RESEARCH:
        return text("research plant")
    b = player.building(symbol)
    return building_label(b) if b is not None else text("building {building}", building=symbol)


def symbol_option(
    game: GameState | None, player: PlayerState, symbol: str | None, destination: str | None
) -> Text:
    """A time symbol as a button offers it: "Fly to moon 1", "Stay at red's planet", "Research plant"."""
    if symbol == SHIP:
        if destination is not None:
            return text("Fly to {place}", place=place_word(game, destination))
        return text("Stay at {place}", place=place_word(game, player.ship))
    if symbol == RESEARCH:
        return text("Research plant")
    return symbol_label(game, player, symbol, destination)


def unreachable(state: GameState, here: str, destination: Any) -> Text:
    """Why a spaceship at ``here`` cannot fly to ``destination`` ("1. Your spaceship")."""
    places = tuple(place_word(state, n) for n in state.neighbours(here))
    known = isinstance(destination, str) and (
        destination in state.moons or state.owner_of(destination) is not None
    )
    if not known:
        return text(
            "{destination} is not a place on the board; from {place} you can fly to {places}",
            destination=repr(destination),
            place=place_word(state, here),
            places=places,
        )
    return text(
        "{destination} is not one wormhole away from {place}; you can fly to {places}",
        destination=place_word(state, destination),
        place=place_word(state, here),
        places=places,
    )


# --- what a step did, in words ------------------------------------------------------------------------


def _goods(colors: Iterable[str]) -> Text | tuple[Text | str, ...]:
    words = tuple(color_word(c) for c in colors)
    return words if words else text("nothing")


def choice_text(choice: M.Choice | None) -> Text:
    """What a lift with this choice does, in a few words."""
    match choice:
        case None:
            return text("forfeit the action")
        case M.Produce():
            return text("produce")
        case M.Beam(cubes=cubes):
            return text("beam {count} cube", "beam {count} cubes", count=len(cubes))
        case M.Trade(orders=orders):
            return text("place {count} order", "place {count} orders", count=len(orders))
        case M.Deliver(orders=orders):
            if not orders:
                return text("fulfil nothing")
            return text("fulfil {orders}", orders=tuple(counter_text(d.color, d.value) for d in orders))
        case M.MoonTile(research=True):
            return text("take the top tile")
        case M.MoonTile():
            return text("put the top tile under the pile")
        case M.Build(building=b):
            return text("build onto {building}", building=b)
        case M.Upgrade():
            return text("upgrade to stage III")
    return text("act")


def describe(events: Iterable[Any], game: GameState) -> Text:
    """The engine's events of one action, in words for the dashboard."""
    parts: list[Text] = []
    for e in events:
        match e:
            case M.StartingOrdersPlaced(player=p):
                # the pick is secret until every player has picked (Setup for the Full Game, step 9)
                if all(q.ready for q in game.players):
                    parts.append(
                        text(
                            "{player} picked 2 starting orders; everybody has, so all are shown now", player=p
                        )
                    )
                else:
                    parts.append(text("{player} picked 2 starting orders in secret", player=p))
            case M.OcherTileTaken(player=p, tile=tile, building=b):
                drawn = game.tile(tile)
                parts.append(
                    text(
                        "{player} covered {building} with the ocher tile {tile}",
                        player=p,
                        building=b,
                        tile=tile_words(drawn, 3) if drawn is not None else tile,
                    )
                )
            case M.GameStarted():
                parts.append(text("the game started"))
            case M.TimerPlaced(player=p, timer=t, symbol=s, destination=d):
                who = game.player(p)
                label: Text | str = symbol_label(game, who, s, d) if who is not None else s
                parts.append(text("{player} timer {index} → {symbol}", player=p, index=t + 1, symbol=label))
            case M.SandRanThrough(player=p, timer=t):
                parts.append(text("{player} timer {index}: sand ran through", player=p, index=t + 1))
            case M.TimerLifted(player=p, timer=t, symbol=s):
                parts.append(
                    text(
                        "{player} lifted timer {index} from {symbol}", player=p, index=t + 1, symbol=_short(s)
                    )
                )
            case M.ActionForfeited(player=p, symbol=s):
                parts.append(text("{player} forfeited the action of {symbol}", player=p, symbol=_short(s)))
            case M.TimerParked(player=p, timer=t):
                parts.append(text("{player} set timer {index} aside", player=p, index=t + 1))
            case M.ShipArrived(player=p, location=loc):
                parts.append(
                    text("{player}'s ship arrived at {place}", player=p, place=place_word(game, loc))
                )
            case M.TileTaken(player=p, moon=m, tile=tile):
                parts.append(
                    text(
                        "{player} took tile {tile} at {moon} into the research plant",
                        player=p,
                        tile=tile,
                        moon=place_word(game, m),
                    )
                )
            case M.TilePutUnder(player=p, moon=m, tile=None):
                parts.append(
                    text(
                        "{player} put the top tile under the pile at {moon}",
                        player=p,
                        moon=place_word(game, m),
                    )
                )
            case M.TilePutUnder(player=p, moon=m, tile=tile):
                parts.append(
                    text(
                        "{player} put tile {tile} under the pile at {moon}",
                        player=p,
                        tile=str(tile),
                        moon=place_word(game, m),
                    )
                )
            case M.OrderFulfilled(player=p, owner=o, color=c, value=v):
                parts.append(
                    text(
                        "{player} fulfilled {owner}'s {counter}",
                        player=p,
                        owner=o,
                        counter=counter_text(c, v),
                    )
                )
            case M.BonusTaken(player=p, planet_owner=o, value=v):
                parts.append(
                    text(
                        "{player} took the bonus counter ({value}) of {owner}'s planet",
                        player=p,
                        value=v,
                        owner=o,
                    )
                )
            case M.GoodsProduced(player=p, building=b, colors=cs):
                parts.append(
                    text("{player} produced {goods} on {building}", player=p, goods=_goods(cs), building=b)
                )
            case M.GoodsBeamed(player=p, building=b, colors=cs):
                parts.append(
                    text("{player} beamed {goods} into {building}", player=p, goods=_goods(cs), building=b)
                )
            case M.OrdersPlaced(player=p, orders=orders):
                if orders:
                    placed = tuple(
                        text(
                            "{counter} on {building}",
                            counter=counter_text(o.color, o.value),
                            building=o.building,
                        )
                        for o in orders
                    )
                    parts.append(text("{player} placed orders {orders}", player=p, orders=placed))
                else:
                    parts.append(text("{player} placed no orders", player=p))
            case M.BuildingBuilt(player=p, building=b, tile=tile):
                parts.append(
                    text("{player} built tile {tile} onto {building}", player=p, tile=tile, building=b)
                )
            case M.BuildingUpgraded(player=p, building=b):
                parts.append(text("{player} upgraded {building} to stage III", player=p, building=b))
            case M.HandoverChosen(owner=p, color=c, value=v, building=b, spot=i):
                parts.append(
                    text(
                        "{player} will hand over the {counter} on {building} spot {spot} first",
                        player=p,
                        counter=counter_text(c, v),
                        building=b,
                        spot=i + 1,
                    )
                )
            case M.ClockRanOut():
                parts.append(text("the master clock ran out: running sandtimers may finish"))
            case M.GameEnded():
                parts.append(text("every sandtimer is lifted: game over, final scoring"))
    return joined(parts)


def _short(symbol: str) -> Text | str:
    """A time symbol in a sentence about a lift: "the spaceship", "the research plant" or the building's id."""
    if symbol == SHIP:
        return text("the spaceship")
    if symbol == RESEARCH:
        return text("the research plant")
    return symbol
