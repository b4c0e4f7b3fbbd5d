"""The hub deck: Space Dealer for a table without its box (or a demo), the hub shuffling for it.

The same game as at a table that plays with its box (:mod:`.engine`), with the hub making the
entries a table makes, from its own seeded shuffle: :func:`deal` lays the game out the way the hub
always dealt it (the same seed deals the same game as every earlier version, so old logs read back
as the games they were), and during the game :func:`inputs` names what a draw turns up and which
neutral order comes up next, as the actions a player would enter; :func:`follow` keeps the hub's
own order of each pile (:class:`~.model.HubOrder`) after every step. The rules never read that
order.
"""

from __future__ import annotations

import random  # used only as a seeded private generator, random.Random(seed) in deal(); never the shared one
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from companion.games.space_dealer.cards import CardData
from companion.games.space_dealer.dealing import (
    SetupError,
    box_cards,
    check_players,
    lay_out,
    order_ids,
    stack_of,
    table,
)
from companion.games.space_dealer.events import (
    CardDiscarded,
    CardKept,
    CardsShown,
    OrderRedrawn,
    OrderRevealed,
)
from companion.games.space_dealer.model import (
    Act,
    ChooseStart,
    GameState,
    HubOrder,
    NeutralPlanet,
    PlayerState,
    RevealOrder,
    TechCardsShown,
    Timer,
)
from companion.rules.deck import Pile
from companion.rules.outcome import Rejected, checked
from companion.rules.text import text


def deal(
    players: Sequence[str],
    *,
    seed: int,
    data: CardData,
    experienced: bool = True,
    starts: Mapping[str, ChooseStart] | None = None,
) -> GameState:
    """The hub's deal for 3 to 8 players (rulebook 2; 5.1 and 5.3 when ``experienced``), shuffled with
    ``seed``: the cards each box's set leaves out for the player count chosen at random, each player's
    personal stack (a pile of Mines missing one colour, 2 Generators, 1 Depot), the common stacks and
    the order stack, and one order face up at each neutral planet. ``starts`` are secret start choices
    already made (each player's default: Generator left, the first Mine dealt)."""
    names = list(players)
    check_players(names, data)
    rng = random.Random(seed)
    boxes = box_cards(data, len(names), experienced=experienced, every_depot=False)
    personal_sets: list[list[str]] = []
    common: list[str] = []
    for box in boxes.sets:
        piles = [list(mines) for _, mines in box.mine_piles]
        rng.shuffle(piles)
        depots = list(box.depots)
        rng.shuffle(depots)
        for i in range(min(box.stacks, len(piles))):
            personal_sets.append(piles[i] + list(box.generators[2 * i : 2 * i + 2]) + [depots[i]])
        used = dict(box.used)
        for name, copies in box.copies:
            common.extend(rng.sample(list(copies), used[name]))
    common.extend(boxes.experienced)
    if len(personal_sets) < len(names):
        raise SetupError(text("The card data does not give every player a personal technology stack"))
    rng.shuffle(personal_sets)
    cards = boxes.cards
    level = {cid: data.types[card.type].level for cid, card in cards.items()}
    stack2 = [c for c in common if level[c] == 2]
    stack3 = [c for c in common if level[c] == 3]
    rng.shuffle(stack2)
    rng.shuffle(stack3)
    starts = dict(starts or {})
    unknown = set(starts) - set(names)
    if unknown:
        raise SetupError(text("{player} does not play in this game", player=sorted(unknown)[0]))
    people = []
    for seat, name in enumerate(names):
        own = personal_sets[seat]
        colours = {cards[c].colour for c in own if cards[c].type == "Mine"}
        lacking = next((c for c in data.colours if c not in colours), "")
        player = PlayerState(
            name=name, seat=seat, mines=lacking, timers=tuple(Timer(i) for i in range(data.timers_per_player))
        )
        laid_out = checked(lay_out)(cards, player, own, starts.get(name, ChooseStart()))
        if isinstance(laid_out, Rejected):
            raise SetupError(laid_out.reason)
        people.append(replace(laid_out, start=starts.get(name)))
    order_stack = order_ids(data, boxes) if experienced else []
    rng.shuffle(order_stack)
    neutral = [
        NeutralPlanet(2 * seat + 1, order_stack.pop(0) if order_stack else None) for seat in range(len(names))
    ]
    stacks = (
        stack_of(2, stack2, [cards[c].type for c in stack2]),
        stack_of(3, stack3, [cards[c].type for c in stack3]),
    )
    state = table(
        names,
        data,
        boxes,
        experienced=experienced,
        players=people,
        stacks=stacks,
        orders=Pile.of(order_stack),
        neutral=neutral,
    )
    return replace(state, hub=HubOrder(tuple(stack2), tuple(stack3), tuple(order_stack)))


def inputs(state: GameState, player: str) -> list[Any]:
    """What the rules wait for that the hub deck turns up now, as the entries a table would make: the
    cards a player's draw shows, the next order at a neutral planet (entered for ``player``, who
    satisfied the one before)."""
    hub = state.hub
    if hub is None:
        return []
    found: list[Any] = []
    for p in state.players:
        if p.pending_draw is not None and not p.pending_draw[1]:
            level = p.pending_draw[0]
            found.append(TechCardsShown(p.name, hub.stack(level)[: min(2, len(state.stack(level)))]))
    for planet in state.neutral:
        if planet.awaiting and hub.orders:
            found.append(Act(player or state.names[0], RevealOrder(planet.field, hub.orders[0])))
            break
    return found


def follow(state: GameState, events: Sequence[Any]) -> GameState:
    """The hub's own order after a step: cards shown leave the top, a card put back goes under its
    stack, an order turned up leaves the top of the order stack (or goes under it, re-drawn)."""
    hub = state.hub
    if hub is None:
        return state
    for e in events:
        if isinstance(e, CardsShown):
            level = state.card_type(e.cards[0]).level if e.cards else 2
            hub = hub.with_stack(level, tuple(c for c in hub.stack(level) if c not in e.cards))
        elif isinstance(e, CardKept):
            level = state.card_type(e.card).level
            kept = tuple(c for c in hub.stack(level) if c != e.card and c not in e.returned)
            hub = hub.with_stack(level, kept + e.returned)
        elif isinstance(e, CardDiscarded) and state.card_type(e.card).level in (2, 3):
            level = state.card_type(e.card).level
            hub = hub.with_stack(level, (*hub.stack(level), e.card))
        elif isinstance(e, OrderRevealed):
            hub = replace(hub, orders=tuple(o for o in hub.orders if o != e.order))
        elif isinstance(e, OrderRedrawn):
            hub = replace(hub, orders=(*(o for o in hub.orders if o != e.order), e.order))
    return replace(state, hub=hub)
