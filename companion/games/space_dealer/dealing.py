"""The Space Dealer table as dealt (rulebook 2, 5.1, 5.3): the cards of the boxes, each player's start,
and what a table that plays with its box tells the hub before the clock.

Part of the rules engine (:func:`~.engine.apply` hands ``ChooseStart``, ``TakeMines`` and
``TakeDepot`` here). Pure: :func:`setup` deals nothing at random; the hub deck's seeded deal is
:func:`.hubdeck.deal`, made of the same cards in the same order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from companion.errors import CompanionError
from companion.games.space_dealer import board as B
from companion.games.space_dealer.board import R_SETUP, R_TABLE
from companion.games.space_dealer.cards import CardData
from companion.games.space_dealer.events import DepotTaken, MinesTaken, StartChosen
from companion.games.space_dealer.jobs import Stepped, known, running
from companion.games.space_dealer.model import (
    NEUTRAL_SHIP_IDS,
    BuiltCard,
    Card,
    ChooseStart,
    GameState,
    Goods,
    NeutralPlanet,
    PlayerState,
    Ship,
    TakeDepot,
    TakeMines,
    TechStack,
    Timer,
    TimerStatus,
)
from companion.games.space_dealer.scoring import MAX_PLAYERS, MIN_PLAYERS
from companion.games.space_dealer.words import colour_text, colours_text
from companion.rules.deck import Pile
from companion.rules.outcome import Rejected, checked, refuse
from companion.rules.text import Text, TextError, text


class SetupError(CompanionError, TextError):
    """The game cannot be set up as asked (player count, names, start choices); ``.text`` in words."""


# =====================================================================================
# setup: the cards of the boxes, and the table before anything is dealt
# =====================================================================================


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass(frozen=True)
class BoxSet:
    """The cards of one box's card set as they come out of the box, before anything is shuffled
    (rulebook 2, 5.1)."""

    name: str
    """``3``, ``4`` or ``3-5`` (a 3-player set with the extra cards out for 5 players)."""
    mine_piles: tuple[tuple[str, tuple[str, ...]], ...]
    """(the colour a pile lacks, its three Mines), one pile per colour."""
    generators: tuple[str, ...]
    """Two for each personal stack the set makes."""
    depots: tuple[str, ...]
    copies: tuple[tuple[str, tuple[str, ...]], ...]
    """Each level-2 and level-3 type: every copy in the box."""
    used: tuple[tuple[str, int], ...]
    """Each level-2 and level-3 type: how many of its copies the set uses (the rest are taken out)."""
    stacks: int
    """How many personal stacks the set makes (one per Depot it uses)."""


@dataclass(frozen=True)
class Boxes:
    """Every card of the game's boxes, made in the same order whatever deck deals them."""

    cards: dict[str, Card]
    sets: tuple[BoxSet, ...]
    experienced: tuple[str, ...]
    """The cards of the rules for experienced players (all used)."""
    boxes: int


def check_players(names: Sequence[str], data: CardData) -> None:
    """Refuse a player count or names the game cannot take (:class:`SetupError`)."""
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


def box_cards(data: CardData, players: int, *, experienced: bool, every_depot: bool) -> Boxes:
    """The cards of the boxes a game of ``players`` needs (one box for 3-4, two for 5-8), each with its
    id (``mining-complex-red-1``) and its printed colour and order. ``every_depot``: make every Depot of
    the box (a table deck: which one is taken out is unknown), else only those the set uses."""
    basic_sets, exp_sets = data.sets[players]
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

    sets = []
    for box_set in basic_sets:
        counts = {name: n for name, n in data.counts.items() if not data.types[name].experienced}
        for removal in (
            (data.three_player_removals if box_set in ("3", "3-5") else {}),
            (data.five_player_removals if box_set == "3-5" else {}),
        ):
            for name, n in removal.items():
                counts[name] = counts.get(name, 0) - n
        n_sets = counts.get("Depot", 0)
        colours = list(data.colours)
        piles = tuple(
            (missing, tuple(new_card("Mine", c) for c in colours if c != missing)) for missing in colours
        )
        generators = tuple(new_card("Generator") for _ in range(2 * n_sets))
        depots = tuple(
            new_card("Depot") for _ in range(data.counts.get("Depot", 0) if every_depot else n_sets)
        )
        copies, used = [], []
        for name, n in counts.items():
            if data.types[name].level == 1:
                continue
            coloured = name in data.coloured_types
            made = tuple(
                new_card(name, data.colours[i % len(data.colours)] if coloured else "")
                for i in range(data.counts[name])
            )
            copies.append((name, made))
            used.append((name, max(0, n)))
        sets.append(BoxSet(box_set, piles, generators, depots, tuple(copies), tuple(used), n_sets))
    extra: list[str] = []
    if experienced:
        for box_set in exp_sets:
            for name, n in data.counts.items():
                if not data.types[name].experienced:
                    continue
                keep = data.three_player_experienced.get(name, 0) if box_set in ("3", "3-5") else n
                extra.extend(new_card(name) for _ in range(keep))
    boxes = max(len(basic_sets), len(exp_sets) if experienced else 0)
    return Boxes(cards, tuple(sets), tuple(extra), boxes)


def table(
    names: Sequence[str],
    data: CardData,
    boxes: Boxes,
    *,
    experienced: bool,
    players: Sequence[PlayerState],
    stacks: tuple[TechStack, ...],
    orders: Pile,
    neutral: Sequence[NeutralPlanet],
) -> GameState:
    """The table with the players, stacks and neutral planets as dealt."""
    ships = [Ship(name, name, 2 * seat) for seat, name in enumerate(names)]
    order_cards = {}
    if experienced:
        ships.extend(Ship(NEUTRAL_SHIP_IDS[b], None) for b in range(min(boxes.boxes, len(NEUTRAL_SHIP_IDS))))
        order_cards = {
            f"gizzi-{b * len(data.neutral_orders) + i}": spec
            for b in range(boxes.boxes)
            for i, spec in enumerate(data.neutral_orders, start=1)
        }
    timer_pool = data.timers * boxes.boxes - data.timers_per_player * len(names)
    return GameState(
        data=data,
        cards=boxes.cards,
        players=tuple(players),
        ships=tuple(ships),
        stacks=stacks,
        neutral=tuple(neutral),
        order_cards=order_cards,
        orders=orders,
        pool=Goods.of({c: data.goods_per_colour * boxes.boxes for c in data.colours}),
        attack_pool=data.attack_markers * boxes.boxes if experienced else 0,
        timer_pool=max(0, timer_pool),
        experienced=experienced,
    )


def order_ids(data: CardData, boxes: Boxes) -> list[str]:
    """The ids of every neutral order card, ``gizzi-1`` ... (rulebook 5.3)."""
    per_box = len(data.neutral_orders)
    return [f"gizzi-{b * per_box + i}" for b in range(boxes.boxes) for i in range(1, per_box + 1)]


def stack_of(level: int, cards: Sequence[str], types: Sequence[str]) -> TechStack:
    return TechStack(level, Pile.of(cards), Pile.of(types))


def setup(players: Sequence[str], *, data: CardData, experienced: bool = True) -> GameState:
    """A table that plays with its box (rulebook 2; 5.1 and 5.3 when ``experienced``): nothing dealt yet.

    Each player holds their two Generators; which pile of Mines and which Depot they were dealt, and
    which order lies face up at each neutral planet, are entries the table makes before the clock
    (``TakeMines``, ``TakeDepot``, ``RevealOrder``). The common stacks hold what the box's card set
    holds: where cards were taken out at random for fewer players, every copy that may be among them,
    and exactly how many of each type.
    """
    names = list(players)
    check_players(names, data)
    boxes = box_cards(data, len(names), experienced=experienced, every_depot=True)
    pairs = [s.generators[2 * i : 2 * i + 2] for s in boxes.sets for i in range(s.stacks)]
    if len(pairs) < len(names):
        raise SetupError(text("The card data does not give every player a personal technology stack"))
    people = [
        PlayerState(
            name=name,
            seat=seat,
            stack=tuple(pairs[seat]),
            timers=tuple(Timer(i) for i in range(data.timers_per_player)),
        )
        for seat, name in enumerate(names)
    ]
    stacks = []
    for level in (2, 3):
        copies = [
            c for s in boxes.sets for name, made in s.copies for c in made if data.types[name].level == level
        ]
        types = [
            name
            for s in boxes.sets
            for name, n in s.used
            for _ in range(n)
            if data.types[name].level == level
        ]
        extra = [
            c
            for c in boxes.experienced
            if boxes.cards[c].type in data.types and data.types[boxes.cards[c].type].level == level
        ]
        stacks.append(stack_of(level, copies + extra, types + [boxes.cards[c].type for c in extra]))
    orders = order_ids(data, boxes) if experienced else []
    neutral = [NeutralPlanet(2 * seat + 1, awaiting=bool(orders)) for seat in range(len(names))]
    return table(
        names,
        data,
        boxes,
        experienced=experienced,
        players=people,
        stacks=tuple(stacks),
        orders=Pile.of(orders),
        neutral=neutral,
    )


def lay_out(
    cards: Mapping[str, Card], player: PlayerState, own: Sequence[str], start: ChooseStart
) -> PlayerState:
    """The player's start from their personal cards ``own`` (rulebook 2): one Generator beside the planet
    on the chosen side, the chosen Mine on one of its power connections, the rest face down in the stack.
    Without Mines (the table has not said which pile) every card stays in the stack."""
    name = player.name
    if start.side not in ("left", "right"):
        refuse(text("{player}: the Generator goes left or right of the planet", player=name), R_SETUP)
    mines = [c for c in own if cards[c].type == "Mine"]
    if not mines:
        if start.mine:
            refuse(text("Tell the hub which pile of Mines you were dealt first"), R_SETUP)
        return replace(player, stack=tuple(own), plants=((), ()), built=())
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


def personal(p: PlayerState) -> tuple[str, ...]:
    """The cards of the player's start: their personal stack and what they built from it (rulebook 2)."""
    return (*p.stack, *p.plants[0], *p.plants[1], *(b.card for b in p.built))


def missing_entries(state: GameState) -> list[Text]:
    """What the table has still to tell the hub before the clock can start: each player's Mines and
    Depot, each neutral planet's order (rulebook 2, 5.3)."""
    missing: list[Text] = []
    for p in state.players:
        own = personal(p)
        if not any(state.cards[c].type == "Mine" for c in own):
            missing.append(text("{player}'s Mines", player=p.name))
        if not any(state.cards[c].type == "Depot" for c in own):
            missing.append(text("{player}'s Depot", player=p.name))
    for n in state.neutral:
        if n.awaiting:
            missing.append(text("the order at field {field}", field=n.field))
    return missing


# --- the start: what each player was dealt, and where they build it ------------------------------


def _before_the_game(p: PlayerState) -> None:
    """Refuse a start entry once the player has done anything with their cards (rulebook 2)."""
    untouched = (
        not p.planning
        and len(p.built) <= 1
        and len(p.plants[0]) + len(p.plants[1]) <= 1
        and all(t.status is TimerStatus.INACTIVE for t in p.timers)
    )
    if not untouched:
        refuse(text("The Generator and the first Mine are chosen before the game starts"), R_SETUP)


def _held_by_others(state: GameState, player: str) -> set[str]:
    return {c for q in state.players if q.name != player for c in personal(q)}


def _with_personal(state: GameState, p: PlayerState, own: Sequence[str]) -> GameState:
    """The player's start laid out again from ``own`` (their start choice kept while it still fits)."""
    order = {card: i for i, card in enumerate(state.cards)}
    own = sorted(own, key=order.__getitem__)
    start = p.start or ChooseStart()
    laid_out = checked(lay_out)(state.cards, p, own, start)
    if isinstance(laid_out, Rejected):  # the chosen Mine is not in the pile the table named now
        start, laid_out = ChooseStart(start.side), lay_out(state.cards, p, own, ChooseStart(start.side))
    return state.with_player(replace(laid_out, start=p.start and start))


def choose_start(state: GameState, player: str, move: ChooseStart) -> Stepped:
    """A player's secret start (rulebook 2): their Generator's side and first Mine, laid out again."""
    running(state)
    p = known(state, player)
    _before_the_game(p)
    order = {card: i for i, card in enumerate(state.cards)}
    own = sorted(personal(p), key=order.__getitem__)
    if not any(state.cards[c].type == "Mine" for c in own):
        refuse(text("Tell the hub which pile of Mines you were dealt first"), R_SETUP)
    laid_out = lay_out(state.cards, p, own, move)
    state = state.with_player(replace(laid_out, start=move))
    return state, [StartChosen(player, move.side, laid_out.built[0].card)]


def take_mines(state: GameState, player: str, move: TakeMines) -> Stepped:
    """The pile of Mines the player was dealt, named by the colour it lacks (rulebook 2). Said again
    before the clock, it corrects the entry."""
    running(state)
    p = known(state, player)
    _before_the_game(p)
    if move.without not in state.data.colours:
        refuse(text("Goods come in {colours}", colours=colours_text(state.data.colours)), R_SETUP)
    held = _held_by_others(state, player)
    piles = [mines for missing, mines in mine_piles(state) if missing == move.without]
    pile = next((mines for mines in piles if not held & set(mines)), None)
    if pile is None:
        refuse(
            text(
                "There is no other pile of Mines without {colour}: another player has it",
                colour=colour_text(move.without),
            ),
            R_TABLE,
        )
    own = [c for c in personal(p) if state.cards[c].type != "Mine"] + list(pile)
    state = _with_personal(state, replace(p, mines=move.without), own)
    return state, [MinesTaken(player, move.without)]


def mine_piles(state: GameState) -> list[tuple[str, tuple[str, ...]]]:
    """Every pile of Mines of the boxes: (the colour it lacks, its Mines), in the order they were made."""
    colours = state.data.colours
    mines = [c for c in state.cards.values() if c.type == "Mine"]
    size = len(colours) - 1
    piles = []
    for start in range(0, len(mines) - size + 1, size):
        pile = mines[start : start + size]
        lacking = [c for c in colours if c not in {m.colour for m in pile}]
        piles.append((lacking[0] if lacking else "", tuple(m.id for m in pile)))
    return piles


def take_depot(state: GameState, player: str, move: TakeDepot) -> Stepped:
    """The Depot the player was dealt (rulebook 2). Said again before the clock, it corrects the entry."""
    running(state)
    p = known(state, player)
    _before_the_game(p)
    card = state.cards.get(move.card)
    if card is None or card.type != "Depot":
        refuse(text("That is not one of the box's Depots"), R_TABLE)
    if move.card in _held_by_others(state, player):
        refuse(text("Another player was dealt that Depot"), R_TABLE)
    own = [c for c in personal(p) if state.cards[c].type != "Depot"] + [move.card]
    return _with_personal(state, p, own), [DepotTaken(player, move.card)]
