"""Space Dealer with the box on the table: the hub follows the real cards instead of shuffling its own.

A test here holds a physical box (its own seeded shuffle, which the hub never sees), plays the game
through the product's messages (:class:`companion.testing.SimulatedTable`, a table deck) entering only
what a player reads off the table (their pile of Mines, their Depot, each neutral order turned up, the
card they keep from a draw), and checks the hub against a replay of the same physical game through the
rules. Impossible entries are refused with the reason and change nothing, entries can be corrected,
the hub deck is the same game with the hub making those entries, and a table's corrected component
file is checked line by line and used by the rules.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from companion.games.space_dealer import GAME, hubdeck
from companion.games.space_dealer import model as M
from companion.games.space_dealer.board import final_score
from companion.games.space_dealer.cards import PACKAGE, SHIPPED, CardData, CardDataError
from companion.games.space_dealer.dealing import box_cards, order_ids
from companion.games.space_dealer.dealing import setup as table_deal
from companion.games.space_dealer.engine import apply
from companion.games.space_dealer.model import GameState, Phase
from companion.games.space_dealer.referee import SpaceDealerReferee
from companion.games.space_dealer.words import card_face_text, order_text
from companion.i18n import render
from companion.rules.context import Context
from companion.rules.outcome import Accepted, Decision, Rejected
from companion.rules.pages import MenuItem
from companion.rules.setup import default_setup
from companion.table import events as ev
from companion.testing import SimulatedTable, acks
from tests.conftest import replays

PLAYERS = ("red", "yellow", "green")
SAND_S = 60.0


def english(value: Any) -> str:
    return render(value, "en")


# --- the box on the table ---------------------------------------------------------------------------------


class Box:
    """The physical box of a game: the cards taken out at random for the player count (face down),
    each player's pile of Mines and Depot, the common stacks and the order stack, shuffled by hand.
    The order is the test's own (``rng``): the hub learns only what the players read off the table."""

    def __init__(self, players: Iterable[str], rng: random.Random, data: CardData | None = None) -> None:
        data = data or GAME.data
        names = list(players)
        boxes = box_cards(data, len(names), experienced=True, every_depot=True)
        self.cards = boxes.cards
        level = {c: data.types[card.type].level for c, card in boxes.cards.items()}
        stacks: dict[int, list[str]] = {2: [], 3: []}
        piles, depots = [], []
        for box in boxes.sets:
            used = dict(box.used)
            for name, copies in box.copies:
                for card in rng.sample(list(copies), used[name]):  # the rest go back into the box unseen
                    stacks[level[card]].append(card)
            piles += [(missing, mines) for missing, mines in box.mine_piles]
            depots += list(box.depots)
        for card in boxes.experienced:
            stacks[level[card]].append(card)
        for cards in (stacks[2], stacks[3], piles, depots):
            rng.shuffle(cards)
        self.stacks = stacks
        """Each common stack, top first."""
        self.mines = {name: piles[i] for i, name in enumerate(names)}
        """Each player's pile of Mines: (the colour it lacks, its Mines)."""
        self.depot = {name: depots[i] for i, name in enumerate(names)}
        self.orders = order_ids(data, boxes)
        rng.shuffle(self.orders)
        """The order stack, top first."""

    def draw(self, level: int) -> list[str]:
        """The top two cards of a common stack, taken into the hand."""
        drawn, self.stacks[level] = self.stacks[level][:2], self.stacks[level][2:]
        return drawn

    def under(self, level: int, *cards: str) -> None:
        self.stacks[level].extend(cards)

    def turn_up(self) -> str:
        return self.orders.pop(0)

    def order_under(self, order: str) -> None:
        self.orders.append(order)


# --- a table that plays with it ----------------------------------------------------------------------------


class Players:
    """A Space Dealer table with its box: the phones post only what a player reads off the table."""

    def __init__(
        self,
        box: Box,
        rng: random.Random,
        *,
        players: tuple[str, ...] = PLAYERS,
        game: GameState | None = None,
    ) -> None:
        """``game``: a table laid out by hand (its deal already entered)."""
        self.box = box
        self.rng = rng
        self.table = SimulatedTable(game="space-dealer", players=players, deck="table", seed=99, start_s=0.0)
        if game is not None:  # the same table, its game laid out by hand
            referee = SpaceDealerReferee(self.table.setup, GAME.data, game=game)
            self.table = SimulatedTable(self.table.setup, start_s=0.0, referee=referee)
        for node in self.table.nodes:
            self.table.hello(node)
        self.out: list[str] = []
        """The physical cards taken out of the common stacks (kept from a draw), wherever they are now."""
        self.face_up: dict[int, str] = {}
        """The physical order card face up at each neutral planet."""
        self.entries = 0
        self.seen = 0
        """How many of the log's events the players have looked at."""

    @property
    def game(self) -> GameState:
        return self.table.game

    def menu(self, player: str, group: str | None = None) -> list[MenuItem]:
        return [i for i in self.table.menu(player) if group is None or english(i.group) == group]

    def tap(self, player: str, item: MenuItem) -> Decision | Rejected | None:
        if item.intent is not None:
            return self.table.choose(player, item.node, item.intent).refusal
        outcome = self.table.tap(player, item.action)
        self.look()
        return outcome.refusal or outcome.decision

    def look(self) -> None:
        """What the players do on the table after what the hub decided: a discarded card goes back under
        its stack (the physical card of that face), a delivered neutral order leaves its planet."""
        events = self.table.session.log.events()
        for event in events[self.seen :]:
            if not isinstance(event, ev.GameStepped):
                continue
            for fact in event.facts:
                if type(fact).__name__ == "CardDiscarded" and self.game.card_type(fact.card).level in (2, 3):
                    face = card_face_text(self.game, fact.card)
                    card = next(c for c in self.out if card_face_text(self.game, c) == face)
                    self.out.remove(card)
                    self.box.under(self.game.card_type(fact.card).level, card)
                elif type(fact).__name__ == "OrderSatisfied" and fact.owner is None:
                    field = next(
                        f
                        for f, c in self.face_up.items()
                        if order_text(self.game, c) == order_text(self.game, fact.order)
                    )
                    del self.face_up[field]
        self.seen = len(events)

    def enter(self, player: str, group: str, label: str) -> None:
        """Tap the button of ``group`` that reads ``label`` (what the player sees on the card)."""
        found = [i for i in self.menu(player, group) if english(i.label) == label]
        assert found, f"{player}'s phone offers no {label!r} under {group!r}"
        assert isinstance(self.tap(player, found[0]), Decision)
        self.entries += 1

    # --- what the table dealt --------------------------------------------------------------------------
    def deal(self) -> None:
        """Before the clock: each player enters their Mines and Depot; the neutral orders are turned up."""
        for player in self.table.setup.players:
            missing, _ = self.box.mines[player]
            [pile] = [i for i in self.menu(player) if i.action == M.TakeMines(missing)]
            assert isinstance(self.tap(player, pile), Decision)
            depot = english(card_face_text(self.game, self.box.depot[player]))
            self.enter(player, "My Depot: the one I was dealt", depot)
        self.reveal_orders(self.table.setup.players[0])

    def reveal_orders(self, player: str) -> None:
        """Every neutral planet waiting for an order: the table turns up the next card and enters it; the
        hub says when several players could satisfy it at once, and the card goes under the stack."""
        for _ in range(40):
            waiting = [n for n in self.game.neutral if n.awaiting]
            if not waiting:
                return
            planet = waiting[0]
            card = self.box.turn_up()
            group = f"Neutral planet at field {planet.field}: the order turned up"
            self.enter(player, group, english(order_text(self.game, card)))
            if self.game.neutral_at(planet.field).awaiting:  # type: ignore[union-attr]
                self.box.order_under(card)  # several players could satisfy it at once (rulebook 5.3)
            else:
                self.face_up[planet.field] = card
        raise AssertionError("the neutral planets kept waiting")

    def draw(self, player: str, level: int) -> None:
        """The player draws two cards, keeps one (the table's choice) and puts the other under the stack."""
        [button] = [i for i in self.menu(player) if i.action == M.DrawTechCards(level)]
        assert isinstance(self.tap(player, button), Decision)
        drawn = self.box.draw(level)
        keep = self.rng.choice(drawn)
        self.box.under(level, *(c for c in drawn if c != keep))
        self.enter(
            player, "Keep one drawn card: which did you keep?", english(card_face_text(self.game, keep))
        )
        self.out.append(keep)

    def flip(self, node: str, job: Any = None) -> str:
        if job is not None:
            player = self.table.setup.seat_of(node).player  # type: ignore[union-attr]
            assert self.table.choose(player, node, job).refusal is None
        verdict = acks(self.table.flip(node), node)[0][0]
        self.look()
        return verdict

    def run(self, seconds: float = SAND_S) -> None:
        self.table.advance(seconds)
        self.look()

    # --- play -------------------------------------------------------------------------------------------
    def play(self, steps: int) -> None:
        """Players tap what their phones offer (a draw is drawn from the box; an order turned up after a
        delivery comes from the order stack), flip their sandtimers and let time pass."""
        players = self.table.setup.players
        for _ in range(steps):
            roll = self.rng.random()
            player = self.rng.choice(players)
            if roll < 0.5:
                items = [i for i in self.menu(player) if not _is_entry(i)]
                if items:
                    item = self._pick(items)
                    if isinstance(item.action, M.DrawTechCards):
                        self.draw(player, item.action.level)
                    else:
                        self.tap(player, item)
                        self.reveal_orders(player)
            elif roll < 0.85:
                node = self.rng.choice([s.node for s in self.table.setup.seats if s.player == player])
                if not self.table.nodes[node].sand.is_running():
                    self.flip(node)
            else:
                self.run(self.rng.choice([5, 20, 61]))

    def _pick(self, items: list[MenuItem]) -> MenuItem:
        """A player's usual choice: deliveries and draws often, jobs for the timers, the rest now and then."""
        weights = []
        for item in items:
            group = english(item.group)
            if group == "Orders" or isinstance(item.action, M.DrawTechCards):
                weights.append(20.0)
            elif item.intent is not None:
                weights.append(3.0)
            elif group in ("Plan a card", "Goods"):
                weights.append(1.0)
            else:
                weights.append(0.2)
        return self.rng.choices(items, weights)[0]


def _is_entry(item: MenuItem) -> bool:
    return isinstance(
        item.action, (M.TakeMines, M.TakeDepot, M.RevealOrder, M.CorrectKeptCard, M.KeepDrawnCard)
    )


def replayed(table: SimulatedTable) -> GameState:
    """The same physical game replayed through the rules: the table's deal, then every logged action."""
    state = table_deal(list(table.setup.players), data=GAME.data, experienced=True)
    for event in table.session.log.events():
        if not isinstance(event, ev.GameStepped):
            continue
        for action in event.actions:
            if isinstance(action, M.TimerNodeKnown):
                continue
            result = apply(state, action)
            assert isinstance(result, Accepted), f"{action}: {result}"
            state = result.state
    return state


def faces(game: GameState, cards: Iterable[str]) -> list[str]:
    return sorted(english(card_face_text(game, c)) for c in cards)


# --- a whole game ----------------------------------------------------------------------------------------


def _red_can_deliver(box: Box, game: GameState) -> tuple[str, str, int] | None:
    """(first Mine's colour, second Mine's colour, field) when a neutral order next to red's planet wants
    one good of each of two of red's Mines."""
    colours = [game.cards[c].colour for c in box.mines["red"][1]]
    for field in (1, 5):
        planet = game.neutral_at(field)
        spec = game.order_cards[planet.order]  # type: ignore[union-attr, index]
        goods = spec.goods_dict()
        if len(goods) == 2 and set(goods.values()) == {1} and set(goods) <= set(colours):
            first, second = sorted(goods)
            return first, second, field
    return None


def _a_box_where_red_can_deliver() -> tuple[Box, Players, tuple[str, str, int]]:
    for seed in range(200):
        box = Box(PLAYERS, random.Random(seed))
        table = Players(box, random.Random(seed))
        table.deal()
        plan = _red_can_deliver(box, table.game)
        if plan is not None:
            return box, table, plan
        table.table.close()
    raise AssertionError("no shuffle puts a neutral order red can deliver next to red's planet")


def test_a_game_played_with_the_box_shuffled_by_hand_ends_as_the_replay_of_that_physical_game():
    box, table, (first, second, field) = _a_box_where_red_can_deliver()
    hub = table.game
    # the hub learnt the deal from the players alone: each Mine pile, Depot and face-up order as on the table
    for player in PLAYERS:
        own = {
            c
            for p in [hub.player(player)]
            for c in (*p.stack, *p.plants[0], *p.plants[1], *(b.card for b in p.built))
        }  # type: ignore[union-attr]
        assert set(box.mines[player][1]) <= own and box.depot[player] in own
    assert len(hub.orders) == len(box.orders)  # the hub knows what the order stack holds, not its order
    assert all(not n.awaiting and n.order for n in hub.neutral)
    table.enter(
        "red",
        "Start (secret until the clock starts): Generator and first Mine",
        f"Generator left, {first} Mine",
    )
    assert table.table.start().refusal is None

    # red builds a second Mine, produces one good of each colour and delivers the neutral order next door
    second_mine = next(c for c in box.mines["red"][1] if hub.cards[c].colour == second)
    assert (
        table.tap("red", next(i for i in table.menu("red") if i.action == M.PlayCard(second_mine)))
        is not None
    )
    assert table.flip("red-1", M.BuildCard(second_mine, -1)) == "accepted"
    table.run()
    first_mine = table.game.player("red").built[0].card  # type: ignore[union-attr]
    assert table.flip("red-1", M.UseCard(first_mine)) == "accepted"
    assert table.flip("red-2", M.UseCard(second_mine)) == "accepted"
    table.run()
    assert table.flip("red-1", M.MoveShip("red", field)) == "accepted"
    table.run()
    order = table.game.neutral_at(field).order  # type: ignore[union-attr]
    [deliver] = [i for i in table.menu("red", "Orders") if i.action == M.SatisfyOrder("red", order)]  # type: ignore[arg-type]
    assert isinstance(table.tap("red", deliver), Decision)
    assert table.game.neutral_at(field).awaiting  # type: ignore[union-attr]  # the table turns up the next one
    table.reveal_orders("red")
    # red raises the tech level and draws twice from the TechLevel 2 stack
    assert table.flip("red-1", M.RaiseTechLevel()) == "accepted"
    table.run()
    table.draw("red", 2)

    table.play(400)
    table.run(30 * 60 + 120)  # the master clock runs out; the last timers complete
    game = table.game
    assert game.phase is Phase.OVER and table.table.ctx.ended_by == "clock"
    assert (
        table.entries >= 3 + 3 + 1 + 1
    )  # Depots, the orders at the start, an order after the delivery, a draw

    # the hub's game is the rules' replay of the same physical game
    again = replayed(table.table)
    assert replace(game, nodes=(), seats_asked=()) == again
    assert table.table.referee.scores(game, table.table.ctx) == final_score(again).to_json()
    assert final_score(game).winners == final_score(again).winners
    # what the hub holds is what lies on the table: the cards out of the stacks, the stacks' sizes, the orders
    on_table = [
        c
        for p in game.players
        for c in (*p.stack, *p.planning, *p.plants[0], *p.plants[1], *(b.card for b in p.built))
        if game.card_type(c).level in (2, 3)
    ]
    assert faces(game, on_table) == faces(game, table.out)
    assert [len(game.stack(level)) for level in (2, 3)] == [len(box.stacks[level]) for level in (2, 3)]
    assert len(game.orders) == len(box.orders)
    for planet in game.neutral:
        physical = table.face_up.get(planet.field)
        assert (planet.order and order_text(game, planet.order)) == (physical and order_text(game, physical))
    assert replays(table.table.session)
    table.table.close()


# --- impossible entries, corrections -------------------------------------------------------------------------


def _started(players: tuple[str, ...] = PLAYERS, seed: int = 3) -> Players:
    box = Box(players, random.Random(seed))
    table = Players(box, random.Random(seed), players=players)
    table.deal()
    assert table.table.start().refusal is None
    return table


def dealt(box: Box, players: tuple[str, ...] = PLAYERS) -> GameState:
    """The table with what the box dealt already entered (each through the rules)."""
    game = table_deal(list(players), data=GAME.data)
    moves = [(p, M.TakeMines(box.mines[p][0])) for p in players] + [
        (p, M.TakeDepot(box.depot[p])) for p in players
    ]
    moves += [(players[0], M.RevealOrder(n.field, box.turn_up())) for n in game.neutral]
    for player, move in moves:
        result = apply(game, M.Act(player, move))
        assert isinstance(result, Accepted), result
        game = result.state
    return game


def laid_out(game: GameState, box: Box, players: tuple[str, ...] = PLAYERS, **levels: int) -> Players:
    """A table laid out by hand (players at the technology ``levels`` given), its master clock started."""
    for name, level in levels.items():
        game = game.with_player(replace(game.player(name), tech_level=level))  # type: ignore[arg-type]
    table = Players(box, random.Random(0), players=players, game=game)
    assert table.table.start().refusal is None
    return table


def test_the_clock_waits_for_what_the_table_dealt():
    box = Box(PLAYERS, random.Random(1))
    table = Players(box, random.Random(1))
    refused = table.table.start().refusal
    assert refused is not None and english(refused.reason) == (
        "Before the clock starts, tell the hub what the table dealt: red's Mines, red's Depot, yellow's Mines, "
        "yellow's Depot, green's Mines, green's Depot, the order at field 1, the order at field 3 and the order "
        "at field 5"
    )
    assert table.table.ctx.started is False
    table.deal()
    assert table.table.start().refusal is None


def test_an_impossible_entry_is_refused_with_the_reason_and_changes_nothing():
    box = Box(PLAYERS, random.Random(3))
    game = dealt(box)
    # a 3-player set leaves 2 of the box's 6 Solar Satellites out at random (rulebook 2): after the fourth,
    # no copy can still be in the stack, whichever two were left out
    solar = [c for c in game.stack(2).cards.items() if game.cards[c].type == "Solar Satellite"]
    assert len(solar) == 6 and game.stack(2).types.count("Solar Satellite") == 4
    for card in solar[:4]:
        stack = game.stack(2)
        game = game.with_stack(
            replace(
                stack,
                cards=stack.cards.take(card, pile="x"),
                types=stack.types.take("Solar Satellite", pile="x"),
            )
        )
    table = laid_out(game, box, red=3)
    assert table.table.tap("red", M.DrawTechCards(2)).refusal is None
    before = table.game
    refused = table.table.tap("red", M.KeepDrawnCard(solar[4])).refusal
    assert refused is not None
    assert english(refused.reason) == "There is no Solar Satellite left in the TechLevel 2 stack"
    assert english(refused.rule) == "What the table drew"
    assert table.game == before  # a wrong entry changes nothing
    assert english(table.table.session.table.refusals["red"].reason) == english(refused.reason)
    offered = {english(i.label) for i in table.menu("red", "Keep one drawn card: which did you keep?")}
    assert "Solar Satellite" not in offered
    # a card of the other stack is not in this one
    level3 = next(c for c in before.stack(3).cards.items())
    refused = table.table.tap("red", M.KeepDrawnCard(level3)).refusal
    assert refused is not None and english(refused.reason).endswith("left in the TechLevel 2 stack")
    assert table.game == before


def test_a_second_copy_of_a_unique_card_is_refused():
    players = ("red", "yellow", "green", "blue")  # a 4-player set: every copy of the box is in the stacks
    box = Box(players, random.Random(6))
    table = laid_out(dealt(box, players), box, players, red=3, yellow=3)
    station = "orbital-station-1"  # the box has one (rulebook 5.1)
    assert table.table.tap("red", M.DrawTechCards(3)).refusal is None
    assert table.table.tap("red", M.KeepDrawnCard(station)).refusal is None
    assert table.table.tap("yellow", M.DrawTechCards(3)).refusal is None
    before = table.game
    refused = table.table.tap("yellow", M.KeepDrawnCard(station)).refusal
    assert refused is not None
    assert english(refused.reason) == "There is no Orbital Station left in the TechLevel 3 stack"
    assert table.game == before
    offered = [english(i.label) for i in table.menu("yellow", "Keep one drawn card: which did you keep?")]
    assert "Orbital Station" not in offered and offered


def test_the_kept_card_and_a_neutral_order_can_be_corrected_until_they_are_used():
    box = Box(PLAYERS, random.Random(3))
    table = laid_out(dealt(box), box, red=2)
    assert table.table.tap("red", M.DrawTechCards(2)).refusal is None
    keep = table.menu("red", "Keep one drawn card: which did you keep?")
    wrong, right = keep[0].action.card, keep[1].action.card
    assert table.table.tap("red", keep[0].action).refusal is None
    stack = table.game.stack(2)
    assert wrong not in stack.cards and table.game.player("red").planning == (wrong,)  # type: ignore[union-attr]
    fixes = table.menu("red", "Correct: the card I kept is really")
    [fix] = [i for i in fixes if i.action == M.CorrectKeptCard(right)]
    assert all(i.search for i in fixes)
    assert isinstance(table.tap("red", fix), Decision)
    red = table.game.player("red")
    assert red.planning == (right,) and red.kept == right  # type: ignore[union-attr]
    assert wrong in table.game.stack(2).cards and right not in table.game.stack(2).cards
    assert len(table.game.stack(2)) == len(stack)
    # once a timer stands on it the entry holds (an undo can still take it back)
    assert table.flip("red-1", M.DiscardCard(right)) == "accepted"
    assert table.menu("red", "Correct: the card I kept is really") == []
    refused = table.table.tap("red", M.CorrectKeptCard(wrong)).refusal
    assert refused is not None and english(refused.reason) == "A timer stands on that card"
    # a face-up neutral order the table entered: its entrant may correct it while it lies there
    planet = table.game.neutral_at(1)
    assert planet is not None and planet.revealed_by == "red"
    corrections = table.menu("red", "Correct: the order at field 1 is really")
    assert corrections and all(i.search for i in corrections)
    other = corrections[0].action.order
    assert isinstance(table.tap("red", corrections[0]), Decision)
    assert table.game.neutral_at(1).order == other  # type: ignore[union-attr]
    assert planet.order in table.game.orders and other not in table.game.orders
    assert table.menu("yellow", "Correct: the order at field 1 is really") == []
    # and an undo takes the correction back
    assert table.table.undo().refusal is None
    assert table.game.neutral_at(1).order == planet.order  # type: ignore[union-attr]
    assert replays(table.table.session)


def test_before_the_clock_a_player_corrects_their_mines_and_depot_and_after_it_cannot():
    box = Box(PLAYERS, random.Random(4))
    table = Players(box, random.Random(4))
    table.deal()
    missing, mines = box.mines["red"]
    other = next(
        i for i in table.menu("red", "My Mines: the pile I was dealt") if i.action != M.TakeMines(missing)
    )
    assert isinstance(table.tap("red", other), Decision)
    red = table.game.player("red")
    assert red.mines == other.action.without  # type: ignore[union-attr]
    assert not set(mines) & {*red.stack, *(b.card for b in red.built)}  # type: ignore[union-attr]
    refused = table.table.tap("red", M.TakeMines(box.mines["yellow"][0])).refusal
    assert refused is not None and "another player has it" in english(refused.reason)
    refused = table.table.tap("red", M.TakeDepot(box.depot["yellow"])).refusal
    assert refused is not None and english(refused.reason) == "Another player was dealt that Depot"
    assert isinstance(
        table.tap("red", next(i for i in table.menu("red") if i.action == M.TakeMines(missing))), Decision
    )
    assert table.table.start().refusal is None
    refused = table.table.tap("red", M.TakeMines(other.action.without)).refusal
    assert refused is not None
    assert english(refused.reason) == "What each player was dealt is told before the game starts"


def test_a_contested_order_goes_under_the_stack_and_the_next_one_comes_from_above_it():
    box = Box(PLAYERS, random.Random(5))
    game = dealt(box)
    first = game.neutral_at(1).order  # type: ignore[union-attr]
    spec = game.order_cards[first]  # type: ignore[index]
    contested = next(o for o in game.orders.items() if len(game.order_cards[o].goods) == 2)
    wanted = game.order_cards[contested].goods_dict()
    for name, goods in (("red", spec.goods_dict()), ("yellow", wanted), ("green", wanted)):
        ship = game.ship(name)
        bag = M.Goods.of(goods)
        game = replace(
            game.with_ship(replace(ship, field=1, destination=None, cargo=bag)), pool=game.pool - bag
        )  # type: ignore[arg-type]
    table = laid_out(game, box)
    assert table.table.tap("red", M.SatisfyOrder("red", first)).refusal is None  # type: ignore[arg-type]
    assert table.game.neutral_at(1).awaiting  # type: ignore[union-attr]
    assert table.table.tap("red", M.RevealOrder(1, contested)).refusal is None
    planet = table.game.neutral_at(1)
    assert planet.awaiting and planet.redrawn == (contested,)  # type: ignore[union-attr]  # yellow and green could
    offered = [i.action.order for i in table.menu("red", "Neutral planet at field 1: the order turned up")]
    assert contested not in offered  # it lies under the stack now
    refused = table.table.tap("red", M.RevealOrder(1, contested)).refusal
    assert refused is not None and "went back under the stack" in english(refused.reason)
    calm = next(o for o in offered if table.game.order_cards[o].goods_dict() != wanted)
    assert table.table.tap("red", M.RevealOrder(1, calm)).refusal is None
    planet = table.game.neutral_at(1)
    assert planet.order == calm and not planet.awaiting and contested in table.game.orders  # type: ignore[union-attr]


# --- the phone: a typical draw ------------------------------------------------------------------------------


def test_a_draw_is_one_group_of_the_cards_the_stack_can_hold_the_likeliest_first():
    box = Box(PLAYERS, random.Random(3))
    table = laid_out(dealt(box), box, red=2)
    menu = table.menu("red")
    assert (
        english(next(i for i in menu if i.action == M.DrawTechCards(2)).label) == "draw 2 TechLevel 2 cards"
    )
    assert table.table.tap("red", M.DrawTechCards(2)).refusal is None
    menu = table.menu("red")
    keep = [i for i in menu if isinstance(i.action, M.KeepDrawnCard)]
    assert keep and menu[: len(keep)] == keep, "the cards to keep come first on the phone, in one group"
    assert {english(i.group) for i in keep} == {"Keep one drawn card: which did you keep?"}
    assert all(i.search for i in keep)
    game = table.game
    stack = game.stack(2)
    copies = [
        sum(1 for c in stack.cards.items() if card_face_text(game, c) == card_face_text(game, i.action.card))
        for i in keep
    ]
    assert copies == sorted(copies, reverse=True), "the likeliest cards first"
    labels = [english(i.label) for i in keep]
    assert len(labels) == len(set(labels)), "copies that look the same are one button"
    assert set(labels) == {english(card_face_text(game, c)) for c in stack.cards.items()}


# --- the hub deck is the same game -----------------------------------------------------------------------------


def _normal(game: GameState) -> Any:
    """A game as the table sees it, without what only one deck keeps (the hub's own order, who entered
    which order, the card a table may still correct) and with cards that look the same (the Generators,
    which carry no order) named by their face."""

    def face(card: str) -> str:
        return english(card_face_text(game, card))

    players = tuple(
        (
            p.name,
            p.mines,
            p.tech_level,
            tuple(face(c) for c in p.stack),
            tuple(face(c) for c in p.planning),
            tuple(tuple(face(c) for c in side) for side in p.plants),
            tuple((face(b.card), b.x) for b in p.built),
            p.pending_draw,
        )
        for p in game.players
    )
    neutral = tuple((n.field, n.order, n.awaiting) for n in game.neutral)
    return players, game.stacks, game.orders, neutral, game.pool, game.ships, game.satisfied


def test_the_hub_deck_makes_the_entries_a_table_makes():
    players = ("red", "yellow", "green", "blue")  # a 4-player set: nothing is taken out of the box
    dealt = hubdeck.deal(list(players), seed=8, data=GAME.data)
    setup = replace(default_setup("sd", players=4, game="space-dealer", seed=8), deck="hub")
    hub = SpaceDealerReferee(setup, GAME.data)
    table = SpaceDealerReferee(replace(setup, deck="table"), GAME.data)
    off, on = Context(), Context(started=True)
    a, b = hub.start(setup), table.start(replace(setup, deck="table"))
    assert _normal(a) == _normal(dealt) and a.hub is not None and b.hub is None
    # the table enters what the hub dealt: the same game
    for p in dealt.players:
        depot = next(c for c in p.stack if dealt.cards[c].type == "Depot")
        for move in (M.TakeMines(p.mines), M.TakeDepot(depot)):
            step = table.player_action(b, off, p.name, move)
            assert isinstance(step, Decision), step
            b = step.state
    for planet in dealt.neutral:
        step = table.player_action(b, off, "red", M.RevealOrder(planet.field, planet.order))  # type: ignore[arg-type]
        assert isinstance(step, Decision), step
        b = step.state
    assert _normal(a) == _normal(b)
    # a draw: the hub deck turns up its top two, the same action a table's draw would be followed by
    lay_a = a.with_player(replace(a.player("red"), tech_level=2))  # type: ignore[arg-type]
    lay_b = b.with_player(replace(b.player("red"), tech_level=2))  # type: ignore[arg-type]
    drew = hub.player_action(lay_a, on, "red", M.DrawTechCards(2))
    assert isinstance(drew, Decision)
    top = a.hub.stack2[:2]  # type: ignore[union-attr]
    assert drew.actions == (M.Act("red", M.DrawTechCards(2)), M.TechCardsShown("red", top))
    kept = hub.player_action(drew.state, on, "red", M.KeepDrawnCard(top[1]))
    assert isinstance(kept, Decision) and kept.actions == (M.Act("red", M.KeepDrawnCard(top[1])),)
    assert kept.state.hub.stack2[-1] == top[0]  # type: ignore[union-attr]  # the other went under
    at_table = table.player_action(lay_b, on, "red", M.DrawTechCards(2))
    assert isinstance(at_table, Decision) and at_table.actions == (M.Act("red", M.DrawTechCards(2)),)
    at_table = table.player_action(at_table.state, on, "red", M.KeepDrawnCard(top[1]))
    assert isinstance(at_table, Decision)
    assert _normal(kept.state) == _normal(at_table.state)
    # a phone cannot enter what the hub deck deals
    refused = hub.player_action(a, off, "red", M.TakeMines("red"))
    assert isinstance(refused, Rejected)
    assert english(refused.reason) == "The hub deck deals and turns up the cards at this table"


def test_an_old_logs_draw_and_delivery_are_turned_up_by_the_hub_deck_as_that_hub_did():
    from companion.games.space_dealer.legacy import legacy_action

    setup = replace(default_setup("sd", players=3, game="space-dealer", seed=2), deck="hub")
    referee = SpaceDealerReferee(setup, GAME.data)
    state = referee.start(setup)
    state = state.with_player(replace(state.player("red"), tech_level=2))  # type: ignore[arg-type]
    on = Context(started=True)
    top = state.hub.stack2[:2]  # type: ignore[union-attr]
    for action in legacy_action({"type": "DrawTechCards", "player": "red", "level": 2}):
        state = referee.replay(state, on, action).state
    assert state.player("red").pending_draw == (2, top)  # type: ignore[union-attr]


# --- a table's own component file -------------------------------------------------------------------------


def _copy(tmp_path: Path, old: str, new: str) -> Path:
    text = resources.files(PACKAGE).joinpath(SHIPPED).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "cards.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('"Solar Satellite" = 6', '"Solar Satelite" = 6', "counts names unknown card type 'Solar Satelite'"),
        ("cargo_limit = 8", "cargo_lmit = 8", "box.cargo_lmit is not a field of the card data (a typo?)"),
        (
            'kind = "converter"\nconnections = 1',
            'kind = "convertor"\nconnections = 1',
            "types.Converter.kind",
        ),
    ],
)
def test_a_components_file_with_a_typo_gives_one_line_naming_the_file_line_and_field(
    tmp_path, old, new, field
):
    path = _copy(tmp_path, old, new)
    with pytest.raises(CardDataError) as info:
        GAME.load_components(str(path))  # type: ignore[misc]
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"card data {path}, line ")
    line = int(message.split(", line ")[1].split(":")[0])
    assert new.split("\n")[0] in path.read_text(encoding="utf-8").splitlines()[line - 1]
    assert field in message


def test_a_corrected_value_in_the_components_file_is_what_the_rules_use(tmp_path):
    data = GAME.load_components(str(_copy(tmp_path, "cargo_limit = 8", "cargo_limit = 3")))  # type: ignore[misc]
    assert data.cargo_limit == 3
    setup = replace(default_setup("sd", players=3, game="space-dealer", seed=0), deck="hub")
    on = Context(started=True)
    goods = M.Goods.of(red=2, yellow=2)
    collect = M.TransferGoods(M.AtNeutralPlanet(1), M.InShip("red"), goods)
    for cards, verdict in ((GAME.data, Decision), (data, Rejected)):
        referee = SpaceDealerReferee(setup, cards)
        game = referee.start(setup)
        assert game.data is cards
        game = game.with_ship(replace(game.ship("red"), field=1))  # type: ignore[arg-type]
        game = replace(game.with_planet(replace(game.neutral_at(1), goods=goods)), pool=game.pool - goods)  # type: ignore[arg-type]
        step = referee.player_action(game, on, "red", collect)
        assert isinstance(step, verdict), step
    assert english(step.reason) == "A spaceship holds at most 3 goods"  # type: ignore[union-attr]
    # a table started with it plays by it
    table = SimulatedTable(setup, referee=SpaceDealerReferee(setup, data))
    assert table.game.data.cargo_limit == 3
    # and a setup naming the file gets it from the registry (read once per file)
    path = tmp_path / "cards.toml"
    named = SimulatedTable(replace(setup, components=str(path)))
    assert named.game.data.cargo_limit == 3 and named.referee.data is GAME.data_for(
        replace(setup, components=str(path))
    )  # type: ignore[attr-defined]
