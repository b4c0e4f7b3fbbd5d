"""Time Splicers with the box on the table: the players shuffle, the hub follows what they enter.

At a table deck the hub never owns the cards' order: it counts the hands and the draw pile and is
told a card's colour and number (or which special card) when it is placed or turned up. These
tests keep a physical shuffle to themselves, play whole games through the product's own way in
(``companion.testing.SimulatedTable``: flips, taps from the phones' menus, time passing) entering
only what a player reads off the table, and check the hub against a replay of the same physical
game through the rules with every card known. They also check what the table enters: a wrong or
impossible entry is refused with the reason and changes nothing, the starting card can be
corrected until the first turn, and a corrected component file is what the rules use.
"""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from companion.games.time_splicers import GAME
from companion.games.time_splicers.components import DeckFileError, load_components
from companion.games.time_splicers.engine import all_card_ids, apply, unseen_cards, unseen_pile
from companion.games.time_splicers.model import (
    CardPlaced,
    CardsDrawn,
    CorrectStartingCard,
    DeckReshuffled,
    EnterPortal,
    ForfeitTurn,
    GameState,
    HandDiscarded,
    HandLimitExceeded,
    Move,
    PlaceCard,
    PlaceTimeFreeze,
    RedrawHand,
    RevealCard,
    SpecialCardPlayed,
    StartCardLeft,
    StartingCardDealt,
    TimeFreezePlaced,
    TimeFreezeReturned,
    TimelineCollapsed,
    TimelineFlipped,
    TurnedUpCardDiscarded,
    UseQuantumTunnel,
    UseTimeJump,
)
from companion.games.time_splicers.setup import Layout, new_game
from companion.rules.turns import StartTurn, TimeOut
from companion.table import events as ev
from companion.testing import SimulatedTable, verdict

CONFIG = load_components()
SAND_S = 60.0
DATA = Path(__file__).parent / "data" / "time_splicers"
SHIPPED = Path(__file__).resolve().parents[2] / "companion" / "games" / "time_splicers" / "data" / "deck.csv"


def face(card: str) -> str:
    return CONFIG.index[card].face


def kind(card: str) -> str:
    return CONFIG.index[card].kind


# --- the engine at a table deck ----------------------------------------------------------------------


def dealt(players=("Ann", "Bob"), **kw: Any) -> GameState:
    return new_game(list(players), seed="box", config=CONFIG, deck="table", **kw)


def accept(state: GameState, action: Any, by: str | None = None) -> tuple[GameState, list[Any]]:
    result = apply(state, action, by=by)
    assert result.ok, result
    return result.state, list(result.events)


def test_the_hub_counts_the_hands_and_waits_for_the_starting_card():
    state = dealt()
    assert [(p.hand, p.unseen) for p in state.players] == [((), 4), ((), 4)]
    assert state.deck == () and state.deck_size == 64 - 8 and state.turning_up.why == "start"
    assert unseen_pile(state) == unseen_pile(new_game(["A", "B"], config=CONFIG, deck="table"))  # no order
    refused = apply(state, Move("red-5"), by="Ann")
    assert (
        str(refused.reason) == "Turn up the starting card and enter it first" and str(refused.rule) == "Setup"
    )
    state, events = accept(state, RevealCard("time-freeze"))  # a Time Freeze is discarded (Setup)
    assert events == [TurnedUpCardDiscarded("time-freeze-1")] and state.turning_up.why == "start"
    state, events = accept(state, RevealCard("red-5"))
    assert events == [StartingCardDealt("red-5")] and state.turning_up is None
    assert [p.position for p in state.players] == ["red-5", "red-5"] and state.deck_size == 54


def test_a_special_starting_card_is_held_apart_as_with_the_hub_deck():
    state, _ = accept(dealt(), RevealCard("quantum-tunnel"))
    assert state.start_card == "quantum-tunnel-1" and state.timelines == ()


def test_a_player_names_the_card_they_place_and_it_must_fit_what_is_unseen():
    state, _ = accept(dealt(), RevealCard("red-5"))
    state, events = accept(state, PlaceCard("red-6"), by="Ann")
    placed = next(e for e in events if isinstance(e, CardPlaced))
    assert placed.card == "red-6" and state.player("Ann").hand_size == 4  # 3 left, 1 drawn unseen
    assert next(e for e in events if isinstance(e, CardsDrawn)) == CardsDrawn("Ann", (), 1)
    before = state
    refused = apply(state, PlaceCard("red-6"), by="Bob")  # it lies on the table: nobody can hold it
    assert str(refused.reason) == "There is no red 6 left in the hands and the draw pile"
    assert str(refused.rule) == "What the table drew" and state == before
    refused = apply(state, PlaceCard("red-66"), by="Bob")
    assert str(refused.reason) == "There is no card called red-66 in this deck"
    refused = apply(state, PlaceCard("time-jump"), by="Bob")
    assert "is a special card" in str(refused.reason)


def test_special_cards_are_named_by_what_they_are_and_run_out():
    state, _ = accept(dealt(), RevealCard("red-5"))
    state, _ = accept(state, PlaceCard("red-7"), by="Ann")  # red 5 7
    state, _ = accept(state, PlaceCard("red-3"), by="Bob")  # red 3 5 7
    for i, target in enumerate(("red-3", "red-5", "red-7"), start=1):  # Ann's free actions
        state, events = accept(state, UseQuantumTunnel(target), by="Ann")
        assert SpecialCardPlayed("Ann", f"quantum-tunnel-{i}") in events
    assert state.player("Ann").hand_size == 1 and state.discard == (
        "quantum-tunnel-1",
        "quantum-tunnel-2",
        "quantum-tunnel-3",
    )
    state, _ = accept(state, Move("red-5"), by="Ann")
    state, _ = accept(state, UseQuantumTunnel("red-7"), by="Bob")  # the fourth and last one
    refused = apply(state, UseQuantumTunnel("red-3"), by="Bob")
    assert str(refused.reason) == "There is no Quantum Tunnel left in the hands and the draw pile"
    assert apply(state, PlaceTimeFreeze(), by="Bob").ok  # a Time Freeze can still be in Bob's hand


def test_a_collapse_with_no_timeline_left_waits_for_the_card_the_table_turns_up():
    layout = Layout(
        start=None, hands={}, timelines=(("red-4", "red-6"),), positions={"Ann": "red-4", "Bob": "red-6"}
    )
    state = dealt(layout=layout)
    assert [p.unseen for p in state.players] == [4, 4]
    state, events = accept(state, PlaceCard("red-5"), by="Ann")  # 4-5-6 collapses the only Timeline
    assert state.turning_up.why == "timeline" and state.current_player == "Ann"
    assert "TurnEnded" not in [type(e).__name__ for e in events]  # the turn ends once the card lies
    refused = apply(state, EnterPortal(), by="Ann")
    assert "Turn up the top card of the deck for the new Timeline" in str(refused.reason)
    assert str(refused.rule) == "b. Partial Timeline Collapse"
    assert not apply(state, ForfeitTurn()).ok  # the turn timer cannot end the turn meanwhile
    state, events = accept(state, RevealCard("time-jump"))  # a special card is discarded: the next one
    assert events == [TurnedUpCardDiscarded("time-jump-1")] and state.turning_up is not None
    state, events = accept(state, RevealCard("blue-8"), by="Bob")  # whoever saw it enters it
    assert TimelineFlipped("blue-8") in events and state.turning_up is None
    assert [p.position for p in state.players] == ["blue-8", "blue-8"]
    assert state.player("Ann").crystals == 1 and state.current_player == "Bob"
    assert not apply(state, RevealCard("green-1")).ok  # nothing waits any more


def test_a_hand_thrown_away_is_counted_and_comes_back_unseen_at_the_reshuffle():
    state, _ = accept(dealt(), RevealCard("red-5"))
    state, events = accept(state, RedrawHand(), by="Ann")
    assert HandDiscarded("Ann", (), 4) in events and state.discard_unseen == 4
    assert state.player("Ann").hand_size == 4 and state.player("Ann").time_jump_tokens == 1
    # every count adds up to the cards nobody has located
    unseen = sum(p.unseen for p in state.players) + state.deck_unseen + state.discard_unseen
    assert len(unseen_cards(state)) == unseen
    assert Counter(all_card_ids(state)) == Counter(c.id for c in CONFIG.cards())


# --- corrections ---------------------------------------------------------------------------------------


def table_deck(players=("ana", "ben"), seed=1, **kw: Any) -> SimulatedTable:
    sim = SimulatedTable(game="time-splicers", players=players, seed=seed, deck="table", sand_s=SAND_S, **kw)
    for node in sim.nodes:
        sim.hello(node)
    return sim


def test_the_starting_card_can_be_corrected_on_any_phone_until_the_first_turn():
    sim = table_deck()
    assert verdict(sim.flip("ana-1")) == "rejected"  # nothing starts before the starting card lies
    assert sim.tap("ben", RevealCard("red-5")).refusal is None
    assert {str(item.group) for item in sim.menu("ana")} == {"Not the starting card entered? It is:"}
    assert sim.tap("ana", CorrectStartingCard("blue-7")).refusal is None
    assert sim.game.timelines[0].cards == ("blue-7",) and "red-5" in unseen_cards(sim.game)
    assert [p.position for p in sim.game.players] == ["blue-7", "blue-7"]
    assert verdict(sim.flip("ana-1")) == "accepted"
    refused = sim.tap("ben", CorrectStartingCard("red-5")).refusal
    assert (
        str(refused.reason)
        == "The first turn has started: the host can take the starting card back with undo"
    )
    assert sim.game.timelines[0].cards == ("blue-7",)


def test_a_wrong_entry_is_refused_with_the_reason_and_a_mistake_is_taken_back_by_undo():
    sim = table_deck()
    sim.tap("ana", RevealCard("red-5"))
    sim.flip("ana-1")
    before = sim.game
    refused = sim.tap("ana", PlaceCard("red-5")).refusal  # the starting card cannot be in a hand
    assert str(refused.reason) == "There is no red 5 left in the hands and the draw pile"
    assert sim.game == before
    refused = sim.tap("ana", PlaceCard("green-6")).refusal  # neither red nor a 5: not offered either
    assert "neither red" in str(refused.reason) and "place:green-6::" not in {i.id for i in sim.menu("ana")}
    assert sim.tap("ana", PlaceCard("red-6")).refusal is None  # ana held red 4, tapped red 6 by mistake
    assert sim.undo().refusal is None  # the host takes it back: ana's turn runs again
    assert sim.game == before and sim.ctx.turn_open
    assert sim.tap("ana", PlaceCard("red-4")).refusal is None
    assert sim.game.timelines[0].cards == ("red-4", "red-5")


# --- what a phone shows ----------------------------------------------------------------------------------


def test_a_typical_entry_is_one_group_of_buttons_the_likeliest_first():
    sim = table_deck()
    start = sim.menu("ben")
    assert {str(item.group) for item in start} == {"Turned up as the starting card"}
    assert all(item.search for item in start)  # a long group: the phone offers a search box
    pile = unseen_pile(sim.game)
    counts = [pile.count(item.action.card) for item in start]
    assert counts == sorted(counts, reverse=True) and counts[0] == 4  # a special card, 4 copies left
    assert len(start) == len(pile.kinds()) and {i.action.card for i in start} == set(pile.kinds())
    sim.tap("ben", RevealCard("red-5"))
    sim.flip("ana-1")
    places = [item for item in sim.menu("ana") if str(item.group) == "Place a card"]
    assert [str(item.label) for item in places[:3]] == ["red 1", "red 2", "red 3"]
    # every card that can still be in ana's hand and fits next to red 5 or spliced to it, nothing else
    assert {item.action.card for item in places} == {
        *(f"red-{n}" for n in range(1, 14) if n != 5),
        "blue-5",
        "green-5",
        "yellow-5",
    }
    assert len({str(item.group) for item in sim.menu("ana")}) >= 3  # main actions, then the free ones


def test_the_phone_shows_how_many_cards_the_hub_has_not_seen():
    sim = table_deck()
    sim.tap("ana", RevealCard("green-2"))
    view = sim.player_snapshot("ana")["view"]
    hand = view["panels"][0]
    assert hand["title"] == {"msg": "Your hand ({cards})", "args": {"cards": 4}}
    assert hand["lines"] == [
        {
            "msg": "{count} card the hub has not seen",
            "plural": "{count} cards the hub has not seen",
            "args": {"count": 4},
        }
    ]


# --- a whole game with a shuffle the hub never sees --------------------------------------------------------


@dataclass
class Box:
    """The physical cards: a shuffled deck, the hands, the discard pile, as the players hold them.

    The hub never sees any of it; the players follow what the rules say (draw, discard, turn up)."""

    rng: random.Random
    deck: list[str]
    hands: dict[str, list[str]]
    discard: list[str] = field(default_factory=list)
    freezes: dict[str, str] = field(default_factory=dict)
    """Time Freeze on the table: the hub's id for it -> the physical card."""
    start: str = ""
    start_discards: list[str] = field(default_factory=list)
    dealt_deck: list[str] = field(default_factory=list)
    reshuffles: list[list[str]] = field(default_factory=list)
    dealt: dict[str, list[str]] = field(default_factory=dict)
    """The hands as dealt."""

    @classmethod
    def shuffled(cls, players: tuple[str, ...], seed: int) -> Box:
        rng = random.Random(f"the table's own shuffle {seed}")
        deck = [c.id for c in CONFIG.cards() if c.kind != "time_portal"]
        rng.shuffle(deck)
        hands: dict[str, list[str]] = {p: [] for p in players}
        for _ in range(CONFIG.starting_hand):
            for p in players:
                hands[p].append(deck.pop(0))
        return cls(rng, deck, hands, dealt={p: list(cards) for p, cards in hands.items()})

    def turn_up(self) -> str:
        if not self.deck:
            self.reshuffle()
        return self.deck.pop(0)

    def reshuffle(self) -> None:
        self.deck, self.discard = list(self.discard), []
        self.rng.shuffle(self.deck)
        self.reshuffles.append(list(self.deck))

    def take(self, player: str, wanted: str) -> str:
        """The card of the player's hand with that face (the lowest, as the hub deck would play it)."""
        card = min(c for c in self.hands[player] if face(c) == face(wanted) or c == wanted)
        self.hands[player].remove(card)
        return card

    def take_kind(self, player: str, kind_: str) -> str:
        card = min(c for c in self.hands[player] if kind(c) == kind_)
        self.hands[player].remove(card)
        return card

    def follow(self, facts: tuple[Any, ...], after: GameState) -> None:
        """Do at the table what the hub says happened (the notes a player reads)."""
        self._follow(facts)
        frozen = {c for t in after.timelines for c, _ in t.freezes}
        for card in [c for c in self.freezes if c not in frozen]:  # an eliminated player's freezes
            self.discard.append(self.freezes.pop(card))

    def _follow(self, facts: tuple[Any, ...]) -> None:
        for fact in facts:
            match fact:
                case DeckReshuffled():
                    pass  # the players shuffle the discard pile when they need a card and the deck is empty
                case CardsDrawn(player=p, unseen=n):
                    assert not fact.cards
                    for _ in range(n):
                        self.hands[p].append(self.turn_up())
                case HandDiscarded(player=p, unseen=n):
                    assert len(self.hands[p]) == n
                    self.discard += self.hands[p]
                    self.hands[p] = []
                case CardPlaced(player=p, card=c):
                    self.take(p, c)
                case SpecialCardPlayed(player=p, card=c):
                    self.discard.append(self.take_kind(p, kind(c)))
                case TimeFreezePlaced(player=p, card=c):
                    self.freezes[c] = self.take_kind(p, "time_freeze")
                case TimeFreezeReturned(cards=cs):
                    self.discard += [self.freezes.pop(c) for c in cs]
                case TimelineCollapsed(cards=cs):
                    self.discard += [self.freezes.pop(c, c) for c in cs]
                case TurnedUpCardDiscarded(card=c):
                    self.discard.append(c)
                case StartCardLeft(card=c, removed=removed):
                    if not removed:
                        self.discard.append(c)


def allowed(box: Box, player: str, action: Any) -> bool:
    """Could ``player`` really do this with the cards in their hand?"""
    faces = {face(c) for c in box.hands[player]}
    kinds = {kind(c) for c in box.hands[player]}
    match action:
        case PlaceCard(card=c):
            return c in faces
        case UseQuantumTunnel():
            return "quantum_tunnel" in kinds
        case UseTimeJump(token=False):
            return "time_jump" in kinds
        case PlaceTimeFreeze():
            return "time_freeze" in kinds
    return True


def play_a_box_game(seed: int, players: tuple[str, ...], *, turns: int = 300) -> tuple[SimulatedTable, Box]:
    """A whole game at a table deck: the players hold a shuffle of their own and enter what they see."""
    box = Box.shuffled(players, seed)
    sim = table_deck(players=players, seed=seed, clock_length_s=24 * 3600.0)
    rng = random.Random(seed)
    sim.start()

    def step(player: str, action: Any) -> None:
        outcome = sim.tap(player, action)
        assert outcome.refusal is None, (action, outcome.refusal)
        for event in outcome.events:
            if isinstance(event, ev.GameStepped):
                box.follow(event.facts, sim.game)

    def turn_up_what_waits() -> None:
        while sim.game.turning_up is not None:
            card = box.turn_up()
            if sim.game.turning_up.why == "start" and kind(card) == "time_freeze":
                box.start_discards.append(card)
            elif sim.game.turning_up.why == "start":
                box.start = card
                box.dealt_deck = list(box.deck)
            step(rng.choice(players), RevealCard(face(card)))

    turn_up_what_waits()
    for _ in range(turns):
        if sim.referee.is_over(sim.game, sim.ctx):
            break
        player = sim.game.current_player
        sim.advance(SAND_S)  # the last turn's sand has run through
        assert verdict(sim.flip(f"{player}-1")) == "accepted"
        while sim.ctx.turn_open and not sim.game.is_over:
            menu = [item for item in sim.menu(player) if allowed(box, player, item.action)]
            places = [item for item in menu if isinstance(item.action, PlaceCard)]
            if not menu or rng.random() < 0.04:
                for outcome in sim.run_out(f"{player}-1"):
                    for event in outcome.events:
                        if isinstance(event, ev.GameStepped):
                            box.follow(event.facts, sim.game)
                break
            item = rng.choice(places) if places and rng.random() < 0.8 else rng.choice(menu)
            step(player, item.action)
            turn_up_what_waits()
        assert [len(box.hands[p]) for p in players] == [sim.game.player(p).hand_size for p in players]
        assert len(box.deck) == sim.game.deck_size and len(box.discard) == sim.game.discard_size
        assert all(p.hand == () for p in sim.game.players) and sim.game.deck == ()  # the hub never saw them
        assert len(box.reshuffles) == sim.game.shuffles
    if not sim.referee.is_over(sim.game, sim.ctx):
        sim.clock_command("abort")  # the host ends a game that runs long; it is scored as it stands
    return sim, box


def replay_with_every_card_known(sim: SimulatedTable, box: Box, players: tuple[str, ...]) -> GameState:
    """The same physical game through the rules, every card known: the hands dealt, the deck's order, the
    order of every reshuffle; the players' actions as the table logged them."""
    start = new_game(
        list(players),
        config=CONFIG,
        layout=Layout(
            start=box.start,
            hands={p: tuple(cards) for p, cards in box.dealt.items()},
            deck_top=tuple(box.dealt_deck),
            discard=tuple(box.start_discards),
            reshuffle_tops=tuple(tuple(r) for r in box.reshuffles),
        ),
    )
    state = start
    for event in sim.session.log.events():
        if not isinstance(event, ev.GameStepped):
            continue
        for action in event.actions:
            if isinstance(action, (StartTurn, RevealCard, CorrectStartingCard)):
                continue  # the turn is the table's; what was turned up is the known deck's top
            if isinstance(action, TimeOut):
                action = ForfeitTurn()
            state, _ = accept(state, action, by=event.player or None)
    return state


def comparable(state: GameState) -> dict[str, Any]:
    """What the two games must agree on (by face where the hub names a copy it never saw)."""
    return {
        "timelines": [(t.colour, t.cards, [(face(c), p) for c, p in t.freezes]) for t in state.timelines],
        "players": [
            (p.name, p.position, p.hand_size, p.time_jump_tokens, p.freeze_markers, p.crystals, p.eliminated)
            for p in state.players
        ],
        "piles": (state.deck_size, state.discard_size, sorted(face(c) for c in state.removed)),
        "start": face(state.start_card) if state.start_card else None,
        "turn": (state.current, state.turn, state.winner, state.shuffles),
        "supplies": (state.token_supply, state.crystal_supply),
    }


@pytest.mark.parametrize(
    "seed, players", [(1, ("ana", "ben")), (2, ("ana", "ben", "eva")), (3, ("ana", "ben", "eva", "max"))]
)
def test_a_game_with_the_box_on_the_table_ends_as_the_same_physical_game_through_the_rules(seed, players):
    sim, box = play_a_box_game(seed, players)
    assert sim.referee.is_over(sim.game, sim.ctx)
    known = replay_with_every_card_known(sim, box, players)
    assert comparable(sim.game) == comparable(known)
    ctx = sim.ctx
    assert sim.referee.scores(sim.game, ctx) == sim.referee.scores(known, ctx)
    assert sim.snapshot()["scores"] == sim.referee.scores(known, ctx)
    assert sim.game.winner == known.winner


def test_some_box_game_reaches_the_seventh_crystal_and_reshuffles():
    """The physical games above end by the rules' own end often enough; one of them must."""
    ends = []
    for seed in range(4, 8):
        sim, box = play_a_box_game(seed, ("ana", "ben"))
        known = replay_with_every_card_known(sim, box, ("ana", "ben"))
        assert comparable(sim.game) == comparable(known)
        ends.append((sim.ctx.ended_by, sim.game.shuffles))
    assert any(by == "rules" for by, _ in ends), ends
    assert any(shuffles > 0 for _, shuffles in ends), ends


# --- the box's data ----------------------------------------------------------------------------------------


def corrected(tmp_path: Path, **values: str) -> Path:
    lines = []
    for line in SHIPPED.read_text(encoding="utf-8").splitlines():
        entry = line.split(",", 1)[0]
        if entry in values:
            line = f"{entry},{values[entry]},counted in our box"
        lines.append(line)
    path = tmp_path / "our-box.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_table_started_with_a_component_file_with_a_typo_stops_in_one_line_naming_file_line_and_entry(
    tmp_path,
):
    path = corrected(tmp_path, time_freeze_cards="4o")
    said = f"component file {path}, line 17, entry 'time_freeze_cards': must be a whole number of at least 0, not '4o'"
    with pytest.raises(DeckFileError) as caught:
        SimulatedTable(game="time-splicers", players=("ana", "ben"), deck="table", components=str(path))
    assert str(caught.value) == said
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    command = [
        *("run", "--game", "time-splicers", "--players", "2", "--timers", "1", "--deck", "table"),
        *("--components", str(path), "--port", str(port), "--data-dir", str(tmp_path / "data")),
    ]
    record = json.dumps({"players": ["Ann", "Bob"], "deck_file": str(path), "actions": []})
    for args, given in ((command, None), (["referee", "time-splicers", "-"], record)):
        done = subprocess.run(
            [sys.executable, "-m", "companion", *args],
            input=given,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.strip().splitlines() == [f"companion: {said}"]


@pytest.mark.parametrize("hand_maximum, penalty", [("7", False), ("5", True)])
def test_a_table_started_with_a_corrected_value_plays_by_it(tmp_path, hand_maximum, penalty):
    path = corrected(tmp_path, hand_maximum=hand_maximum)
    sim = table_deck(components=str(path))
    sim.tap("ana", RevealCard("red-5"))
    sim.flip("ana-1")
    outcome = sim.tap("ana", EnterPortal())  # 4 cards and 2 drawn: 6, over a maximum of 5
    facts = [f for e in outcome.events if isinstance(e, ev.GameStepped) for f in e.facts]
    assert any(isinstance(f, HandLimitExceeded) for f in facts) is penalty
    assert sim.game.config == GAME.load_components(str(path)) and sim.game.config.hand_maximum == int(
        hand_maximum
    )
    assert sim.game.player("ana").hand_size == (4 if penalty else 6)


def test_the_documented_table_deck_record_is_the_fixture_and_its_real_output():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "games" / "time-splicers.md").read_text(
        encoding="utf-8"
    )
    record = (DATA / "table_game.json").read_text(encoding="utf-8").strip()
    assert record in doc
    done = subprocess.run(
        [sys.executable, "-m", "companion", "referee", "time-splicers", str(DATA / "table_game.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() in doc
    out = json.loads(done.stdout)
    assert out["setup"] == {"start": None, "hands": {"Ann": [], "Bob": []}}
    assert [r["ok"] for r in out["results"]] == [True, True, True, False, True, True, True, True]
    assert out["results"][3]["reason"] == "There is no red 6 left in the hands and the draw pile"
    assert out["crystals"] == {"Ann": 0, "Bob": 1} and out["timelines"] == {"blue": ["blue-8"]}


@pytest.mark.parametrize("seed", range(3))
def test_a_random_table_deck_game_with_undos_reads_back_from_its_log_as_the_live_table(seed, tmp_path):
    """Entries, corrections and undos at a table deck are logged as typed values that fold back exactly."""
    from companion.table.log import read_log
    from companion.table.state import fold
    from companion.testing import play_randomly

    sim = table_deck(players=("ana", "ben", "eva"), seed=seed, log_path=tmp_path / "box.jsonl")
    rng = random.Random(seed)
    sim.start()
    offered = []
    for _ in range(40):
        for player in sim.setup.players:
            offered.extend(sim.menu(player))
        play_randomly(sim, rng, steps=5, undos=1)
    sim.close()
    saved = read_log(tmp_path / "box.jsonl")
    assert fold(saved.setup, saved.events, saved.start) == sim.state
    entered = [a for e in saved.events if isinstance(e, ev.GameStepped) for a in e.actions]
    assert any(isinstance(a, RevealCard) for a in entered) and any(isinstance(a, PlaceCard) for a in entered)
    for item in offered:
        assert (
            GAME.codec.read(json.loads(json.dumps(GAME.codec.encode(item.action))), GAME.moves) == item.action
        )
