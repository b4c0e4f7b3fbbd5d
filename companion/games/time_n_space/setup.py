"""The setups of Time 'n' Space: the state a game starts from ("Setup for the Introductory Game",
"Setup for the Full Game").

Where the box's random components lie depends on who shuffled them. At a table deck the players
shuffle: the moons' piles start unknown to the hub (it knows their heights and, all together,
their tiles) and each player of the introductory game tells the hub the ocher tile they drew.
The hub deck lays the piles out with the hub's own shuffle (:mod:`.hubdeck`) and gives each
seat the ocher tile the data file lists for it, as every hub did before the table deck. A
record may also give the piles as far as the table knew them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from companion.games.time_n_space import model as M
from companion.games.time_n_space.components import COLORS, Components, IntroSeat
from companion.games.time_n_space.engine import apply
from companion.games.time_n_space.hubdeck import dealt_piles
from companion.games.time_n_space.model import (
    PHASE_SETUP,
    Building,
    Cube,
    GameState,
    OcherCover,
    Order,
    PlayerState,
    Timer,
)
from companion.games.time_n_space.scoring import RecordTextError
from companion.games.time_n_space.words import counter_text
from companion.rules.deck import DeckMode, Pile
from companion.rules.outcome import Rejected
from companion.rules.text import text


class SetupError(RecordTextError):
    """The table asked for a setup the rules do not allow (e.g. 5 players); its message is a Text."""


def _check_players(players: Sequence[str]) -> list[str]:
    names = list(players)
    if len(names) not in (3, 4):
        raise SetupError(
            text("Time 'n' Space is played by 3 or 4 players, not {players}", players=len(names))
        )
    if any(not isinstance(n, str) or not n.strip() for n in names):
        raise SetupError(text("every player needs a non-empty name"))
    if len(set(names)) != len(names):
        raise SetupError(text("two players have the same name"))
    return names


def _counters(name: str, table: tuple[tuple[str, tuple[int, ...]], ...]) -> tuple[Order, ...]:
    counters = [Order(name, color, v) for color, values in table for v in values]
    return tuple(sorted(counters, key=lambda o: (COLORS.index(o.color), o.value)))


def _new_player(name: str, seat: int, comps: Components, table: Any, *, ready: bool) -> PlayerState:
    buildings = tuple(
        Building(bid, spec, 1, None, (None,) * len(spec.spots)) for bid, spec in comps.buildings
    )
    planet = f"planet-{seat}"
    return PlayerState(
        name=name,
        planet=planet,
        buildings=buildings,
        research=None,
        above=_counters(name, table),
        collected=(),
        bonus=(),
        ship=planet,
        timers=tuple(Timer() for _ in range(comps.timers_per_player)),
        ready=ready,
    )


def _put(building: Building, spot: int, content: Any) -> Building:
    contents = list(building.contents)
    contents[spot] = content
    return replace(building, contents=tuple(contents))


def ocher_tiles(components: Components) -> tuple[str, ...]:
    """The ocher tiles of the box (production plants), from which every player draws one at random."""
    return tuple(t.id for t in components.tiles if t.stage3.type == "production")


def _random_tile(components: Components, layout: IntroSeat) -> str | None:
    """The building of ``layout`` that the random ocher tile covers (the first production plant tile)."""
    ocher = set(ocher_tiles(components))
    return next((bid for bid, tid in layout.tiles if tid in ocher), None)


def setup_intro(players: Sequence[str], *, components: Components, deck: DeckMode = "hub") -> GameState:
    """Introductory setup ("Setup for the Introductory Game").

    Value-1 counters only (12 per player), three stage III tiles per player, 2 pre-placed orders
    and 2 goods per player, no tiles at the moons and no bonus counters. Players sit in the order
    given; the N-th player owns ``planet-N``. The white and black tiles lie as the data file
    lists them; the ocher one is drawn at random (step 7): at a table deck (``deck="table"``) each
    player tells the hub which one they drew (:class:`~.model.TakeOcherTile`, with the goods of
    step 8 on it) before the clock starts; the hub deck gives each seat the one the data file
    lists. ``components`` is the game's data (``GAME.data``, or a table's own file read with
    :func:`~companion.games.time_n_space.components.load_components`).
    """
    names = _check_players(players)
    board = components.board(len(names))
    supply = [components.goods_per_color] * len(COLORS)
    built = []
    for seat, name in enumerate(names, start=1):
        p = _new_player(name, seat, components, components.counters_intro, ready=True)
        layout = components.intro_seats[seat - 1]
        random_at = _random_tile(components, layout)
        for bid, tid in layout.tiles:
            if bid == random_at:
                continue
            tile = components.tile(tid)
            p = p.with_building(Building(bid, tile.stage3, 3, tile, (None,) * len(tile.stage3.spots)))
        for spot in layout.orders:
            above = _remove_above(p, spot.color, spot.value)
            if above is None:
                raise SetupError(
                    text(
                        "the introductory setup of seat {seat} needs a {counter} counter it does not have",
                        seat=seat,
                        counter=counter_text(spot.color, spot.value),
                    )
                )
            b = p.building(spot.building)
            assert b is not None
            p = replace(p, above=above).with_building(_put(b, spot.spot, Order(name, spot.color, spot.value)))
        for spot in layout.goods:
            if spot.building == random_at:
                continue  # on the ocher tile: placed with it
            b = p.building(spot.building)
            assert b is not None
            p = p.with_building(_put(b, spot.spot, Cube(spot.color)))
            supply[COLORS.index(spot.color)] -= 1
        if random_at is not None:
            goods = tuple(spot.spot for spot in layout.goods if spot.building == random_at)
            p = replace(p, ready=False, ocher=OcherCover(random_at, goods))
        built.append(p)
    if min(supply) < 0:
        raise SetupError(text("the introductory setup places more goods than the supply holds"))
    state = GameState(
        variant="intro",
        players=tuple(built),
        supply=tuple(supply),
        goods_total=components.goods_per_color * len(COLORS),
        moons=board.moons,
        wormholes=board.wormholes,
        piles=tuple(() for _ in board.moons),
        planet_bonus=tuple(None for _ in names),
        phase=PHASE_SETUP,
        tiles=components.tiles,
        ocher=Pile.of(ocher_tiles(components)),
    )
    if deck == "hub":  # the hub deals each seat the tile its data lists
        for seat, p in enumerate(built):
            layout = components.intro_seats[seat]
            if p.ocher is not None:
                state = _applied(state, M.TakeOcherTile(p.name, dict(layout.tiles)[p.ocher.building]))
    return state


def setup_full(
    players: Sequence[str],
    *,
    components: Components,
    seed: int | None = None,
    piles: Mapping[str, Sequence[str]] | None = None,
) -> GameState:
    """Full setup ("Setup for the Full Game").

    The 24 tiles lie in one pile of equal height per moon, stage II up: shuffled by the hub with
    ``seed`` (the hub deck), as a record gives them (``piles``: each moon's tiles top first, as far
    as known), or shuffled by the players and unknown to the hub (neither: a table deck). One
    bonus counter lies on every planet, every player has 24 counters above the control center and
    still has to pick 2 starting orders (:class:`~.model.PlaceStartingOrders`). ``components`` is
    the game's data, as for :func:`setup_intro`.
    """
    names = _check_players(players)
    board = components.board(len(names))
    height = len(components.tiles) // len(board.moons)
    if seed is not None and piles is not None:
        raise SetupError(text("the piles are either shuffled by the hub (a seed) or given, not both"))
    if seed is not None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise SetupError(text("the seed must be a whole number"))
        order: tuple[tuple[str | None, ...], ...] = tuple(
            tuple(t.id for t in pile) for pile in dealt_piles(components.tiles, len(board.moons), seed)
        )
    else:
        order = _given_piles(piles or {}, board.moons, height, {t.id for t in components.tiles})
    return GameState(
        variant="full",
        players=tuple(
            _new_player(n, seat, components, components.counters_full, ready=False)
            for seat, n in enumerate(names, start=1)
        ),
        supply=(components.goods_per_color,) * len(COLORS),
        goods_total=components.goods_per_color * len(COLORS),
        moons=board.moons,
        wormholes=board.wormholes,
        piles=order,
        planet_bonus=tuple(components.bonus_values[: len(names)]),
        phase=PHASE_SETUP,
        seed=seed,
        tiles=components.tiles,
        unseen=Pile.of(t.id for t in components.tiles),
    )


def _given_piles(
    piles: Mapping[str, Sequence[str]], moons: tuple[str, ...], height: int, known: set[str]
) -> tuple[tuple[str | None, ...], ...]:
    """Each moon's pile of ``height`` tiles, top first: the tiles given, then unknown ones."""
    strangers = sorted(set(piles) - set(moons))
    if strangers:
        raise SetupError(
            text(
                "there is no moon {moon} on this board; the moons are {moons}", moon=strangers[0], moons=moons
            )
        )
    seen: set[str] = set()
    out = []
    for moon in moons:
        given = list(piles.get(moon, ()))
        if len(given) > height:
            raise SetupError(
                text(
                    "the pile at {moon} holds {height} tiles, not {count}",
                    moon=moon,
                    height=height,
                    count=len(given),
                )
            )
        for tile in given:
            if tile not in known or tile in seen:
                raise SetupError(
                    text("tile {tile} is not a tile of the box or lies in two places", tile=repr(tile))
                )
            seen.add(tile)
        out.append((*given, *([None] * (height - len(given)))))
    return tuple(out)


def _remove_above(player: PlayerState, color: str, value: int) -> tuple[Order, ...] | None:
    wanted = Order(player.name, color, value)
    above = list(player.above)
    if wanted not in above:
        return None
    above.remove(wanted)
    return tuple(above)


def _applied(state: GameState, action: M.Action) -> GameState:
    result = apply(state, action)
    if isinstance(result, Rejected):
        raise SetupError(result.reason)
    return result.state
