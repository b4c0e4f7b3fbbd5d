"""Timeline with the box on the table (the table deck): the hub sees no card, the players tell it what
they turn over, and it still ends the game exactly as the rules do.

The physical game lives only in this test: a box of 55 cards with years the hub never learns but
through the players, shuffled with a seed the hub never sees, played by the rules (the hub deck's
engine over those cards: who holds which card, what is drawn, how the discard pile is reshuffled).
The hub's table is driven only through the phone pages' menus (SimulatedTable: flips, taps of gaps,
a number pad, right/wrong), entering what a player reads off the table.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from companion.games.timeline import GAME
from companion.games.timeline.cards import Card
from companion.games.timeline.engine import apply, judge, new_game, time_out
from companion.games.timeline.model import (
    CardPlaced,
    CountedPiles,
    Laid,
    NameYear,
    PlaceCard,
    PutIn,
    TimelineState,
    TurnOver,
    YearTyped,
)
from companion.games.timeline.pages import PAD_GROUP, PUT_GROUP, REVEAL_GROUP
from companion.games.timeline.referee import TimelineReferee
from companion.rules.context import Context
from companion.rules.outcome import Accepted, Decision
from companion.rules.setup import make_setup
from companion.table import events as ev
from companion.table.session import TableSession
from companion.testing import SimulatedTable, verdict
from tests.conftest import replays

PLAYERS = ("ana", "ben", "eva")
BOX_CARDS = 55


# --- the physical table (the hub never sees it) ----------------------------------------------------


def the_box(rng: random.Random, count: int = BOX_CARDS) -> tuple[Card, ...]:
    """``count`` cards with years from 500 BCE to 2020, some sharing a year (the hub is never told them)."""
    years = [rng.choice([y for y in range(-500, 2021) if y != 0]) for _ in range(count - count // 10)]
    years += [rng.choice(years) for _ in range(count // 10)]  # a few cards of the same year
    return tuple(Card(f"card{i}", year, f"Event {i}") for i, year in enumerate(years))


class PhysicalTable:
    """The cards on the table: shuffled and dealt by the players (a seed only this test knows), played by
    the rules with every card's identity, as the players handle them."""

    def __init__(
        self, secret: int, *, cards: int = BOX_CARDS, hand_size: int = 4, skill: float = 0.65
    ) -> None:
        rng = random.Random(secret)
        self.cards = cards
        self.skill = skill
        """How often a player knows a right gap for their card."""
        self.state = new_game(the_box(rng, cards), PLAYERS, seed=secret * 7919 + 1, hand_size=hand_size)

    def year(self, card: str) -> int:
        return self.state.piles.cards[card].year

    def reference_year(self) -> int:
        return self.year(self.state.timeline[0].card)

    def place(self, player: str, card: str, gap: int) -> bool:
        """``player`` puts ``card`` in ``gap`` and turns it over; True when it stays."""
        outcome = apply(self.state, PlaceCard(player, card, gap))
        assert isinstance(outcome, Accepted), outcome
        self.state = outcome.state
        return any(isinstance(e, CardPlaced) for e in outcome.events)

    def time_out(self, player: str) -> None:
        outcome = time_out(self.state, player)
        assert isinstance(outcome, Accepted), outcome
        self.state = outcome.state


# --- a player's phone -----------------------------------------------------------------------------


class Phone:
    """What a player does on their phone page: tap a button of their menu by what it is."""

    def __init__(self, table: SimulatedTable, player: str) -> None:
        self.table, self.player = table, player
        self.taps = 0

    def items(self):
        return self.table.menu(self.player)

    def tap(self, item_id: str):
        [item] = [i for i in self.items() if i.id == item_id]
        self.taps += 1
        if item.intent is not None:
            outcome = self.table.choose(self.player, item.node, item.intent)
        else:
            outcome = self.table.tap(self.player, item.action)
        assert outcome.refusal is None, (item, outcome.refusal)
        return outcome

    def type_year(self, year: int) -> None:
        """The number pad: the digits, then "BCE" for a year before the common era."""
        for digit in str(abs(year)):
            self.tap(f"digit:{digit}")
        if year < 0:
            self.tap("bce")


def start(
    table: SimulatedTable, rng: random.Random, physical: PhysicalTable, *, name_reference: bool
) -> None:
    for node in table.nodes:
        table.hello(node)
    table.start()
    if name_reference:  # someone reads the reference card's year and types it in
        phone = Phone(table, rng.choice(PLAYERS))
        phone.type_year(physical.reference_year())
        phone.tap("name:0")


def play_turn(table: SimulatedTable, physical: PhysicalTable, rng: random.Random) -> None:
    """The player to move flips their timer, puts a card in a gap, turns it over and says what it shows."""
    player = physical.state.to_move
    assert table.game.to_move == player
    assert verdict(table.flip(f"{player}-1")) == "accepted"
    table.advance(3)
    if rng.random() < 0.05:  # they think too long
        table.run_out(f"{player}-1")
        physical.time_out(player)
        return
    card = rng.choice(physical.state.hand(player))
    year = physical.year(card)
    right = [g for g in range(len(physical.state.timeline) + 1) if judge(physical.state.years(), g, year)]
    gap = (
        rng.choice(right)
        if rng.random() < physical.skill
        else rng.randrange(len(physical.state.timeline) + 1)
    )
    phone = Phone(table, player)
    if rng.random() < 0.1:  # put it somewhere, then moved it before turning it over
        phone.tap(f"put:{rng.randrange(len(physical.state.timeline) + 1)}")
    phone.tap(f"put:{gap}")
    stays = physical.place(player, card, gap)
    if rng.random() < 0.2:  # "right" or "wrong" without the year
        phone.tap("reveal:right" if stays else "reveal:wrong")
        return
    phone.type_year(year)
    offered = {i.id for i in phone.items()}
    if "reveal:year" in offered:
        phone.tap("reveal:year")
    else:  # a neighbour's year was never entered: the hub asks the table whether it is right
        phone.tap("reveal:year-right" if stays else "reveal:year-wrong")
    table.advance(1)


def hub_matches_the_table(table: SimulatedTable, physical: PhysicalTable) -> None:
    hub, real = table.game, physical.state
    assert isinstance(hub.piles, CountedPiles)
    for name in ("winner", "shared_by", "eliminated", "round", "playoff", "to_move", "emptied"):
        assert getattr(hub, name) == getattr(real, name), name
    assert [hub.held(p) for p in PLAYERS] == [real.held(p) for p in PLAYERS]
    assert (hub.piles.deck, hub.piles.discard) == (real.piles.deck_size, real.piles.discard_size)
    assert len(hub.timeline) == len(real.timeline)
    for mine, theirs in zip(hub.years(), real.years(), strict=True):
        assert mine is None or mine == theirs  # a year nobody entered is unknown, never wrong
    total = sum(hub.held(p) for p in PLAYERS) + hub.piles.deck + hub.piles.discard + len(hub.timeline)
    assert total == physical.cards


def table_for(box_cards: int, hand_size: int) -> SimulatedTable:
    """The hub's table deck for a box of ``box_cards`` (a table's corrected box file says so)."""
    variant = "" if hand_size == 4 else f"hand-{hand_size}"
    table = SimulatedTable(game="timeline", players=PLAYERS, deck="table", variant=variant)
    if box_cards != BOX_CARDS:
        data = replace(GAME.data, box=replace(GAME.data.box, cards=box_cards))
        referee = GAME.referee(table.setup, data)
        table.session = TableSession(table.setup, clock=table.clock, referee=referee)
    return table


GAMES = [
    pytest.param(3, 55, 4, 0.65, id="box-55-a"),
    pytest.param(17, 55, 4, 0.65, id="box-55-b"),
    pytest.param(101, 55, 4, 0.65, id="box-55-c"),
    pytest.param(2024, 55, 4, 0.8, id="box-55-d"),
    pytest.param(5, 12, 2, 0.35, id="small-box-reshuffles-a"),
    pytest.param(8, 12, 2, 0.35, id="small-box-reshuffles-b"),
    pytest.param(13, 8, 1, 0.5, id="tiny-box-playoffs"),
]


def played(secret: int, cards: int, hand_size: int, skill: float, *, check: bool = True):
    rng = random.Random(secret)
    physical = PhysicalTable(secret, cards=cards, hand_size=hand_size, skill=skill)
    table = table_for(cards, hand_size)
    start(table, rng, physical, name_reference=secret % 2 == 1)
    assert table.game.timeline[0].year == (physical.reference_year() if secret % 2 else None)
    for _ in range(400):
        if physical.state.is_over:
            break
        play_turn(table, physical, rng)
        if check:
            hub_matches_the_table(table, physical)
    return table, physical


@pytest.mark.parametrize(("secret", "cards", "hand_size", "skill"), GAMES)
def test_a_whole_game_played_with_the_box_ends_as_the_rules_end_the_physical_game(
    secret, cards, hand_size, skill
):
    table, physical = played(secret, cards, hand_size, skill)
    assert physical.state.is_over and table.game.is_over
    # the scores the hub shows are those of the physical game, scored by the rules
    hub_deck = make_setup(table="t", game="timeline", players=PLAYERS, deck="hub")
    referee = TimelineReferee(hub_deck, GAME.data)
    assert table.snapshot()["scores"] == referee.scores(physical.state, Context())
    assert table.snapshot()["scores"]["winners"]
    assert replays(table.session)


def test_the_physical_games_cover_reshuffles_playoffs_and_the_tables_word():
    """The games above are not all alike: between them the table reshuffled its discard pile, played
    off, and the hub had to take the table's word next to a year nobody entered."""
    seen: set[str] = set()
    for param in GAMES:
        table, _ = played(*param.values, check=False)
        for event in table.session.log.events():
            if isinstance(event, ev.GameStepped):
                seen.update(type(f).__name__ for f in event.facts)
                seen.update("by_table" for f in event.facts if getattr(f, "by_table", False))
    assert {"DiscardReshuffled", "PlayoffStarted", "GameWon", "by_table", "YearNamed"} <= seen


def hub_table(**options) -> SimulatedTable:
    table = SimulatedTable(game="timeline", players=("ana", "ben"), deck="table", **options)
    for node in table.nodes:
        table.hello(node)
    return table


def test_the_table_deck_counts_the_box_and_knows_no_year_until_one_is_entered():
    table = hub_table()
    game = table.game
    assert isinstance(game.piles, CountedPiles)
    assert (game.held("ana"), game.held("ben"), game.piles.deck) == (4, 4, 55 - 9)
    assert game.timeline == (Laid(None),)
    view = table.snapshot()["view"]
    assert [p["title"] for p in view["panels"][:1]] == [{"msg": "Timeline"}]
    assert view["panels"][0]["columns"] == [{"msg": "Year"}]
    # before anything: every seated phone offers the number pad to enter the reference card's year
    phone = Phone(table, "ben")
    assert {i.id for i in phone.items()} >= {"digit:1", "bce"}
    phone.type_year(1978)
    assert [i.id for i in phone.items() if i.action is not None] == ["name:0"]
    phone.tap("name:0")
    assert table.game.timeline == (Laid(1978),)


def test_a_typical_turn_is_a_gap_and_a_verdict_in_two_groups_of_buttons():
    table = hub_table()
    table.flip("ana-1")
    menu = table.menu("ana")
    groups = [str(i.group) for i in menu]
    assert groups[0] == str(PUT_GROUP) and {i.id for i in menu if str(i.group) == str(PUT_GROUP)} == {
        "put:0",
        "put:1",
    }
    phone = Phone(table, "ana")
    phone.tap("put:1")
    menu = table.menu("ana")
    reveal = [i for i in menu if str(i.group) == str(REVEAL_GROUP)]
    assert str(menu[0].group) == str(REVEAL_GROUP), "turning the card over comes first"
    assert [i.id for i in reveal] == ["reveal:right", "reveal:wrong"] and len(reveal) <= 4
    assert [i for i in menu if str(i.group) == str(PUT_GROUP) and i.selected][0].id == "put:1"
    phone.tap("reveal:wrong")
    assert phone.taps == 2
    game = table.game
    assert (game.held("ana"), game.piles.discard, game.piles.deck, game.to_move) == (4, 1, 55 - 10, "ben")


def test_the_year_typed_decides_the_card_and_the_hub_checks_what_it_can():
    table = hub_table()
    ana = Phone(table, "ana")
    ana.type_year(1492)
    ana.tap("name:0")  # the reference card shows 1492
    table.flip("ana-1")
    ana.tap("put:0")  # before 1492
    ana.type_year(1808)
    [year] = [i for i in table.menu("ana") if i.id == "reveal:year"]
    assert year.action == TurnOver(1808) and str(year.label) == "It shows 1808"
    refused = table.tap("ana", TurnOver(1808, True)).refusal
    assert str(refused.reason) == "A card of 1808 does not fit this gap: it is wrong, not right"
    assert table.game.placing is not None, "a wrong entry changes nothing"
    ana.tap("reveal:year")
    game = table.game
    assert game.timeline == (Laid(1492),) and game.piles.discard == 1 and game.held("ana") == 4
    notes = [str(n) for n in table.ctx.recent]
    assert "ana's card shows 1808: wrong, discarded; ana drew a card" in notes


def test_a_card_called_right_without_its_year_leaves_the_hub_asking_the_table_next_to_it():
    table = hub_table()
    ana, ben = Phone(table, "ana"), Phone(table, "ben")
    table.flip("ana-1")
    ana.tap("put:1")  # after the reference card, whose year nobody entered
    ana.tap("reveal:right")
    assert table.game.timeline == (Laid(None), Laid(None))
    table.flip("ben-1")
    ben.tap("put:2")
    ben.type_year(1950)
    offered = [i.id for i in table.menu("ben") if str(i.group) == str(REVEAL_GROUP)]
    assert offered[:2] == ["reveal:year-right", "reveal:year-wrong"]
    refused = table.tap("ben", TurnOver(1950)).refusal
    assert "The hub cannot tell whether 1950 fits" in str(refused.reason)
    ben.tap("reveal:year-right")
    assert table.game.years() == (None, None, 1950)
    # a year entered later is checked against the years the hub knows
    assert str(table.tap("ana", NameYear(0, 1990)).refusal.reason).startswith(
        "A card of 1990 cannot lie there"
    )
    assert table.tap("ana", NameYear(0, 1900)).refusal is None
    assert table.game.years() == (1900, None, 1950)


def test_an_entry_can_be_corrected_until_the_card_is_turned_over_and_undone_after():
    table = hub_table()
    ana = Phone(table, "ana")
    table.flip("ana-1")
    ana.tap("put:0")
    ana.tap("put:1")  # moved: it lies after the reference card
    assert table.game.placing.gap == 1
    ana.type_year(20)
    ana.tap("erase")
    ana.tap("erase")
    ana.type_year(218)
    ana.tap("bce")
    ana.tap("bce")  # not before the common era after all
    assert [i for i in table.menu("ana") if i.id == "reveal:year-right"][0].action == TurnOver(218, True)
    ana.tap("reveal:year-right")
    assert table.game.years() == (None, 218) and table.game.to_move == "ben"
    undone = table.undo()
    assert undone.refusal is None
    assert (
        table.game.placing.gap == 1 and table.game.timeline == (Laid(None),) and table.game.to_move == "ana"
    )
    assert replays(table.session)


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (TurnOver(), "Say the year on the card, or whether it is right or wrong"),
        (TurnOver(0, True), "There is no year 0: the year before 1 is 1 BCE"),
        (NameYear(3, 1500), "There is no card 4 in a timeline of 1 card"),
        (PutIn(2), "There is no gap 2: a timeline of 1 card has gaps 0 to 1"),
    ],
)
def test_an_impossible_entry_is_refused_with_the_reason_and_changes_nothing(action, reason):
    table = hub_table()
    table.flip("ana-1")
    table.tap("ana", PutIn(0))
    before = table.state
    refused = table.tap("ana", action).refusal
    assert str(refused.reason) == reason
    assert table.state.game == before.game and table.state.steps == before.steps


def test_turning_over_needs_a_card_in_a_gap_and_a_named_year_is_final():
    table = hub_table()
    table.flip("ana-1")
    assert (
        str(table.tap("ana", TurnOver(right=True)).refusal.reason)
        == "Put your card in a gap of the timeline first"
    )
    table.tap("ana", NameYear(0, 1500))
    refused = table.tap("ben", NameYear(0, 1600)).refusal
    assert str(refused.reason) == "That card's year is already entered (1500): undo to correct it"


def test_the_sand_running_out_takes_the_card_back():
    table = hub_table()
    table.flip("ana-1")
    table.tap("ana", PutIn(0))
    table.run_out("ana-1")
    game = table.game
    assert game.placing is None and game.held("ana") == 4 and game.to_move == "ben"
    assert "the card goes back to their hand" in str(table.ctx.recent[-1])


def test_the_dashboard_shows_the_card_put_in_its_gap_until_it_is_turned_over():
    table = hub_table()
    table.tap("ben", NameYear(0, 1978))
    table.flip("ana-1")
    table.tap("ana", PutIn(0))
    view = table.snapshot()["view"]
    assert view["summary"]["msg"] == "{stage}: {player} put a card {gap}: turn it over"
    rows = view["panels"][0]["rows"]
    assert rows[0] == [{"msg": "{player}'s card, not turned over yet", "args": {"player": "ana"}}]
    assert rows[1] == [1978]
    cards = view["picture"]["cards"]
    assert [c.get("placing", False) for c in cards] == [True, False]


def test_a_playoff_and_the_winner_from_counts_only():
    """Two players empty their one card in round 1: the play-off draws are counted, the winner named."""
    table = SimulatedTable(game="timeline", players=("ana", "ben", "eva"), deck="table", variant="hand-1")
    ana, ben, eva = (Phone(table, p) for p in ("ana", "ben", "eva"))
    table.tap("ana", NameYear(0, 1500))
    for phone, year, gap in ((ana, 1400, 0), (ben, 1600, 2), (eva, 1700, 0)):
        table.flip(f"{phone.player}-1")
        table.advance(1)
        phone.tap(f"put:{gap}")
        phone.type_year(year)
        phone.tap("reveal:year")
    game = table.game
    assert game.playoff and game.eliminated == ("eva",) and game.round == 2
    assert (game.held("ana"), game.held("ben"), game.held("eva")) == (1, 1, 1)
    assert game.piles.deck == 55 - 4 - 1 - 2  # eva's penalty card, then one each for the play-off
    table.flip("ana-1")
    table.advance(1)
    ana.tap("put:0")
    ana.tap("reveal:right")
    table.flip("ben-1")
    table.advance(1)
    ben.tap("put:0")
    ben.tap("reveal:wrong")
    assert table.game.winner == "ana" and table.state.ended_by == "rules"
    assert table.snapshot()["scores"]["winners"] == ["ana"]


def test_the_number_pad_is_remembered_for_the_turn_only():
    table = hub_table()
    ana = Phone(table, "ana")
    ana.type_year(19)
    draft = table.session.table.intents["ana-1"]
    assert draft == YearTyped("19", False, 0)
    labels = [str(i.label) for i in table.menu("ana") if i.action is not None]
    assert labels == ["Card 1 shows 19"]
    table.flip("ana-1")  # the turn starts: an earlier draft is gone
    assert not any(i.id.startswith("name:") for i in table.menu("ana"))
    assert [i.id for i in table.menu("ana") if str(i.group) == str(PAD_GROUP)][:3] == [
        "digit:1",
        "digit:2",
        "digit:3",
    ]
    refused = table.choose("ana", "ana-1", YearTyped("0123"))
    assert str(refused.refusal.reason) == "A year has one to 4 digits and no leading zero"


def test_ending_a_table_deck_game_early():
    table = hub_table()
    table.start()
    table.flip("ana-1")
    table.tap("ana", PutIn(0))
    table.clock_command("abort")
    assert table.state.ended_by == "host" and table.menu("ana") == [] and table.menu("ben") == []
    scores = table.snapshot()["scores"]
    assert scores["winners"] == [] and scores["ended_early"]
    stepped = [e for e in table.session.log.events() if isinstance(e, ev.GameStepped)]
    assert stepped[-1].ends_turn


def test_the_hub_deck_and_the_table_deck_are_chosen_by_the_setup():
    hub = SimulatedTable(game="timeline", players=("ana", "ben"), deck="hub", seed=4)
    box = SimulatedTable(game="timeline", players=("ana", "ben"), deck="table", seed=4)
    assert hub.game.is_hub_deck and not box.game.is_hub_deck
    assert len(hub.game.hand("ana")) == 4 and box.game.hand("ana") == ()
    hub.flip("ana-1")
    box.flip("ana-1")
    assert {type(i.action).__name__ for i in hub.menu("ana")} == {"Place"}
    assert {type(i.action).__name__ for i in box.menu("ana") if i.action} == {"PutIn"}
    refused = box.tap("ana", hub.menu("ana")[0].action).refusal
    assert "The table plays with its own box" in str(refused.reason)


def test_every_move_a_table_deck_phone_offers_reads_back_through_the_codec():
    table = hub_table()
    table.tap("ana", NameYear(0, 1500))
    table.flip("ana-1")
    Phone(table, "ana").tap("put:1")
    Phone(table, "ana").type_year(1600)
    for item in table.menu("ana"):
        value = item.action if item.action is not None else item.intent
        kinds = GAME.moves if item.action is not None else GAME.intents
        assert GAME.codec.read(GAME.codec.encode(value), kinds) == value


def test_judging_with_years_nobody_entered():
    years = (1000, None, 1500, None)
    assert judge(years, 0, 900) is True and judge(years, 0, 1100) is False
    assert judge(years, 1, 1200) is None  # the unknown card lies between 1000 and 1500
    assert judge(years, 1, 999) is False  # before 1000 cannot be right of it
    assert judge(years, 2, 1500) is True  # the unknown card on its left is at most 1500
    assert judge(years, 2, 1600) is False  # after 1500 cannot be left of 1500
    assert judge(years, 4, 1400) is False and judge(years, 4, 1600) is None
    assert judge((None,), 0, 5) is None and judge((None,), 1, 5) is None


def test_a_decision_counts_every_card_of_the_box():
    table = hub_table()
    table.flip("ana-1")
    table.tap("ana", PutIn(0))
    step = table.tap("ana", TurnOver(right=False)).decision
    assert isinstance(step, Decision) and step.ends_turn
    game: TimelineState = table.game
    piles = game.piles
    assert sum(piles.hands) + piles.deck + piles.discard + len(game.timeline) == 55


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_taps_at_a_table_deck_log_typed_values_that_read_back_as_the_live_table(seed, tmp_path):
    """The contract's random game, at a table deck: whatever the phones tap (gaps, verdicts, pad keys,
    years of cards nobody entered, undos, time passing), the log reads back as the live table."""
    from companion.table.log import read_log
    from companion.table.state import fold
    from companion.testing import play_randomly

    path = tmp_path / "game.jsonl"
    table = SimulatedTable(game="timeline", players=PLAYERS, deck="table", seed=seed, log_path=path)
    for node in table.nodes:
        table.hello(node)
    rng = random.Random(seed)
    table.start()
    offered = []
    for step in range(300):
        for player in PLAYERS:
            offered.extend(table.menu(player))
        play_randomly(table, rng, steps=1, undos=1 if step % 40 == 0 else 0)
        game = table.game
        total = sum(game.held(p) for p in PLAYERS) + game.piles.deck + game.piles.discard + len(game.timeline)
        assert total == BOX_CARDS
        known = [y for y in game.years() if y is not None]
        assert known == sorted(known), "the known years stay in order"
    table.close()
    saved = read_log(path)
    assert fold(saved.setup, saved.events, saved.start) == table.state
    codec = GAME.codec
    for event in saved.events:
        if isinstance(event, ev.GameStepped):
            for value in (*event.actions, *event.facts):
                assert codec.decode(codec.encode(value)) == value
    kinds = {type(i.action or i.intent).__name__ for i in offered}
    assert {"PutIn", "TurnOver", "YearTyped"} <= kinds
