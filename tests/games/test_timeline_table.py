"""Timeline on the hub with the hub deck: a real TableSession on a fake clock, sandtimers as turn timers.

Every test drives the table through the product's own way in (:class:`companion.testing.SimulatedTable`:
node reports, phone taps, clock commands); the hub deals the shipped card list and reveals the years.
"""

import random

import pytest

from companion.errors import ConfigError
from companion.games import referee_for
from companion.games.timeline import GAME
from companion.games.timeline.engine import fits
from companion.games.timeline.model import GameStopped, Place, PlaceCard
from companion.games.timeline.pages import gap_label, year_label
from companion.games.timeline.referee import TimelineReferee
from companion.rules import Decision
from companion.rules.outcome import Rejected
from companion.rules.setup import Seat, default_setup, make_setup
from companion.rules.text import Text, from_json
from companion.rules.turns import StartTurn, TimeOut
from companion.table import events as ev
from companion.table.log import EventLog
from companion.table.session import TableSession
from companion.testing import SimulatedTable, acks, verdict
from tests.conftest import logged_actions, replays

SAND_S = 60.0
THINK_S = 2.0
"""How long a player thinks before tapping (so no two sandtimers run out at the same moment)."""

# ana: 1492 Granada, 1808 Dos de Mayo; ben: 711 Muslim conquest, 1992 Barcelona; reference: 1978 Constitution
DEAL = {
    "hands": {"ana": ["granada", "dos-de-mayo"], "ben": ["conquista-musulmana", "barcelona-92"]},
    "reference": "constitucion-1978",
    "draw_pile": ["armada", "guernica", "trafalgar"],
}


def english(value):
    """``value`` with every text in it (a Text or its JSON form) as its English sentence."""
    if isinstance(value, Text):
        return str(value)
    if isinstance(value, dict) and "msg" in value:
        return str(from_json(value))
    if isinstance(value, dict):
        return {k: english(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [english(v) for v in value]
    return value


def two_player_setup(*, turn_limit=True, timers=1, seed=7, variant=""):
    seats = tuple(Seat(name, i, f"{name}-{i}") for name in ("ana", "ben") for i in range(1, timers + 1))
    return make_setup(
        table="tl",
        game="timeline",
        players=("ana", "ben"),
        seats=seats,
        seed=seed,
        sand_s=SAND_S,
        turn_limit=turn_limit,
        variant=variant,
        deck="hub",
    )


def dealt(setup, deal, *, log=None):
    """A simulated table whose hub deck holds ``deal`` (a record's explicit deal) instead of a seeded one."""
    table = SimulatedTable(setup)
    referee = TimelineReferee(setup, GAME.data, deal=deal)
    table.session = TableSession(setup, clock=table.clock, referee=referee, log=log)
    for node in table.nodes:
        table.hello(node)
    return table


def reply(outcome):
    """(verdict, reason) of the ack a node got."""
    [answer] = acks(outcome)
    return answer


def acted(table):
    return logged_actions(table.session)


@pytest.fixture
def table():
    return dealt(two_player_setup(), DEAL)


def test_the_hub_finds_the_referee_and_deals_from_the_seed():
    setup = two_player_setup(seed=3)
    referee = referee_for(setup)
    assert isinstance(referee, TimelineReferee)
    state = referee.start(setup)
    assert [len(state.hand(p)) for p in ("ana", "ben")] == [4, 4] and len(state.timeline) == 1
    assert referee.start(setup) == state
    assert len(referee_for(two_player_setup(variant="hand-3")).start(setup).hand("ana")) == 3


@pytest.mark.parametrize("variant", ["hand-0", "speed", "hand-x"])
def test_an_unknown_variant_is_a_config_error(variant):
    with pytest.raises(ConfigError, match="hand-N"):
        referee_for(two_player_setup(variant=variant))


def test_a_table_the_game_cannot_start_is_a_config_error():
    with pytest.raises(ConfigError, match="2 to 8 players"):
        referee_for(default_setup("solo", players=1, game="timeline"))


def test_the_first_flip_of_the_first_player_starts_the_game(table):
    assert table.player_snapshot("ana")["menu"] == []
    assert english(table.snapshot()["view"]["summary"]) == "Round 1: ana's turn: flip timer 1 to start"
    assert reply(table.flip("ana-1")) == ("accepted", "")
    assert table.ctx.turn_open and acted(table) == [StartTurn("ana")]
    assert english(table.snapshot()["view"]["summary"]) == "Round 1: ana is placing a card"


def test_a_flip_out_of_turn_is_refused_with_the_reason(table):
    answer = reply(table.flip("ben-1"))
    assert answer == ("rejected", "It is ana's turn, not ben's")
    refusal = english(table.player_snapshot("ben")["refusal"])
    assert (refusal["reason"], refusal["rule"]) == (answer[1], "Gameplay")
    assert not table.ctx.turn_open and acted(table) == []


def test_a_second_flip_during_the_turn_restarts_nothing(table):
    table.flip("ana-1")
    table.advance(30)
    answer = reply(table.flip("ana-1"))
    assert answer[0] == "rejected" and "already running" in answer[1]
    assert acted(table) == [StartTurn("ana")] and table.ctx.turn_open


def test_a_second_timer_of_the_player_is_not_a_turn_timer():
    table = dealt(two_player_setup(timers=2), DEAL)
    answer = reply(table.flip("ana-2"))
    assert answer == ("rejected", "Timer 2 is not used in Timeline: flip timer 1 to start your turn")
    assert verdict(table.flip("ana-1")) == "accepted"


def test_a_placement_needs_the_turn_started_and_the_right_player(table):
    refused = table.tap("ana", Place("granada", 0)).refusal
    assert (
        isinstance(refused, Rejected) and str(refused.reason) == "Flip your timer 1 to start your turn first"
    )
    table.flip("ana-1")
    refused = table.tap("ben", Place("barcelona-92", 1)).refusal
    assert isinstance(refused, Rejected) and str(refused.reason) == "It is ana's turn, not ben's"
    refused = table.tap("ana", Place("barcelona-92", 1)).refusal
    assert isinstance(refused, Rejected) and "no card 'barcelona-92'" in str(refused.reason)
    assert english(table.player_snapshot("ana")["refusal"]["reason"]).startswith("ana has no card")


def test_the_menu_names_cards_and_gaps_but_never_the_hidden_years(table):
    table.flip("ana-1")
    menu = english(table.player_snapshot("ana")["menu"])
    assert [(i["group"], i["label"]) for i in menu] == [
        ("Place Fall of Granada", "before 1978 The Spanish Constitution is approved"),
        ("Place Fall of Granada", "after 1978 The Spanish Constitution is approved"),
        ("Place Dos de Mayo uprising in Madrid", "before 1978 The Spanish Constitution is approved"),
        ("Place Dos de Mayo uprising in Madrid", "after 1978 The Spanish Constitution is approved"),
    ]
    assert menu[0]["action"] == {"@": "Place", "card": "granada", "gap": 0}
    assert GAME.codec.read(menu[0]["action"], GAME.moves) == Place("granada", 0)
    assert not any("1492" in i["label"] or "1808" in i["label"] for i in menu)
    assert table.player_snapshot("ben")["menu"] == []
    hand = english(table.player_snapshot("ana")["view"]["panels"][0])
    assert hand == {
        "kind": "lines",
        "title": "Your hand (2)",
        "lines": ["Fall of Granada", "Dos de Mayo uprising in Madrid"],
    }


def test_gap_labels_name_both_neighbours(table):
    table.flip("ana-1")
    table.tap("ana", Place("granada", 0))
    table.flip("ben-1")
    table.tap("ben", Place("conquista-musulmana", 0))
    assert str(gap_label(table.game, 0)) == "before 711 The Muslim conquest of the peninsula begins"
    assert (str(year_label(-218)), year_label(1492)) == ("218 BCE", "1492")
    assert (
        str(gap_label(table.game, 2))
        == "between 1492 Fall of Granada and 1978 The Spanish Constitution is approved"
    )


def test_a_phone_tap_places_the_card_and_passes_the_turn(table):
    table.flip("ana-1")
    step = table.tap("ana", Place("granada", 0)).decision
    assert isinstance(step, Decision) and step.actions == (PlaceCard("ana", "granada", 0),)
    assert table.game.timeline_cards() == ("granada", "constitucion-1978")
    assert table.game.to_move == "ben" and not table.ctx.turn_open
    assert "ana placed Fall of Granada (1492): correct" in english(table.snapshot()["recent"][0]["text"])
    view = english(table.snapshot()["view"])
    assert view["panels"][0]["rows"] == [
        [1492, "Fall of Granada"],
        [1978, "The Spanish Constitution is approved"],
    ]
    assert view["summary"] == "Round 1: ben's turn: flip timer 1 to start"
    assert reply(table.flip("ana-1"))[1] == "It is ben's turn, not ana's"


def test_a_wrong_placement_discards_and_draws(table):
    table.flip("ana-1")
    table.tap("ana", Place("dos-de-mayo", 1))  # 1808 after 1978: wrong
    assert table.game.hand("ana") == ("granada", "armada")
    assert table.game.piles.discard == ("dos-de-mayo",)
    assert english(table.snapshot()["view"]["panels"][2]["lines"]) == [
        f"Deck: {table.game.piles.deck_size} cards",
        "Discard pile: 1 card",
    ]
    picture = english(table.snapshot()["view"]["picture"])
    assert picture["last"] == {
        "id": "dos-de-mayo",
        "year_label": "1808",
        "title": "Dos de Mayo uprising in Madrid",
        "correct": False,
    }
    assert not any(card["last"] for card in picture["cards"])


def test_the_sand_running_out_times_the_turn_out(table):
    table.flip("ana-1")
    table.run_out("ana-1")
    assert acted(table)[-1] == TimeOut("ana")
    assert table.game.to_move == "ben" and not table.ctx.turn_open
    assert table.game.hand("ana") == ("granada", "dos-de-mayo")
    assert table.game.timeline_cards() == ("constitucion-1978",)
    assert "ana's time ran out" in english(table.snapshot()["recent"][0]["text"])
    assert verdict(table.flip("ben-1")) == "accepted"
    # the last player's time-out ends the round like a placement does
    table.run_out("ben-1")
    assert table.game.round == 2 and table.game.to_move == "ana"
    assert replays(table.session)


def test_without_a_turn_limit_the_sand_is_only_a_reminder():
    table = dealt(two_player_setup(turn_limit=False), DEAL)
    table.flip("ana-1")
    table.run_out("ana-1")
    assert acted(table) == [StartTurn("ana")]
    assert table.game.to_move == "ana" and table.ctx.turn_open
    assert isinstance(table.tap("ana", Place("granada", 0)).decision, Decision)


def test_an_old_timer_running_out_during_another_turn_changes_nothing(table):
    table.flip("ana-1")
    table.tap("ana", Place("granada", 0))
    table.flip("ben-1")
    table.advance(SAND_S / 2)
    table.empty("ana-1")  # ana's sand from her turn, reported late
    assert table.game.to_move == "ben" and table.ctx.turn_open
    assert acted(table)[-1] == StartTurn("ben")


def test_the_master_clock_only_bounds_the_session():
    table = dealt(two_player_setup(turn_limit=False), DEAL)  # the sand running out changes nothing either
    table.start()
    table.flip("ana-1")
    table.advance(table.setup.clock_length_s + 1)
    assert table.state.clock.phase == "expired"
    assert table.ctx.turn_open and table.game.to_move == "ana"
    assert "master clock has run out" in reply(table.flip("ben-1"))[1]


def play(table, player, card, gap):
    assert verdict(table.flip(f"{player}-1")) == "accepted"
    table.advance(THINK_S)
    step = table.tap(player, Place(card, gap))
    assert isinstance(step.decision, Decision), step.refusal


def test_a_whole_game_to_its_end_with_scores_and_replay(table):
    assert table.snapshot()["scores"] is None
    play(table, "ana", "granada", 0)  # 1492 | 1978
    play(table, "ben", "conquista-musulmana", 1)  # 1492 | 711? wrong: discarded, ben draws armada (1588)
    assert table.game.hand("ben") == ("barcelona-92", "armada")
    play(table, "ana", "dos-de-mayo", 1)  # 1492 1808 1978: ana's hand is empty
    play(table, "ben", "barcelona-92", 3)  # correct, but ben still holds armada: ana alone emptied
    assert table.game.winner == "ana" and table.state.ended_by == "rules"
    assert english(table.snapshot()["view"]["summary"]) == "ana wins!"
    assert table.snapshot()["scores"] == {
        "winners": ["ana"],
        "shared": False,
        "ranking": ["ana", "ben"],
        "rounds": 2,
        "players": {
            "ana": {"total": 0, "cards_left": 0, "eliminated": False},
            "ben": {"total": 1, "cards_left": 1, "eliminated": False},
        },
    }
    assert table.player_snapshot("ben")["menu"] == []
    assert reply(table.flip("ben-1"))[0] == "rejected"
    refused = table.tap("ben", Place("armada", 0)).refusal
    assert isinstance(refused, Rejected) and str(refused.reason) == "The game is over: ana has already won"
    assert replays(table.session)


def test_the_step_that_names_the_winner_ends_the_game():
    table = dealt(two_player_setup(), DEAL)
    table.start()
    play(table, "ana", "granada", 0)
    play(table, "ben", "conquista-musulmana", 1)
    play(table, "ana", "dos-de-mayo", 1)
    assert table.state.ended_by == "" and table.state.clock.phase == "running"
    play(table, "ben", "barcelona-92", 3)
    stepped = [e for e in table.session.log.events() if isinstance(e, ev.GameStepped)]
    assert [str(e.ended) for e in stepped if e.ended] == ["ana wins!"]
    assert table.state.clock.phase == "expired" and table.state.ended_by == "rules"


def test_a_restarted_hub_rebuilds_the_game_from_the_log(table):
    play(table, "ana", "granada", 0)
    table.flip("ben-1")
    resumed = TableSession(
        table.setup,
        clock=table.clock,
        log=table.session.log,
        referee=TimelineReferee(table.setup, GAME.data, deal=DEAL),
    )
    assert resumed.state == table.state
    assert resumed.state.context.turn_open and resumed.state.game.to_move == "ben"


def test_a_playoff_is_refereed_through_the_session():
    setup = make_setup(
        table="tl",
        game="timeline",
        players=("ana", "ben", "carla"),
        seed=7,
        seats=tuple(Seat(n, 1, f"{n}-1") for n in ("ana", "ben", "carla")),
        deck="hub",
    )
    deal = {
        "hands": {"ana": ["granada"], "ben": ["barcelona-92"], "carla": ["quijote"]},
        "reference": "constitucion-1978",
        "draw_pile": ["guernica", "trafalgar", "armada"],
    }
    table = dealt(setup, deal)
    play(table, "ana", "granada", 0)
    play(table, "ben", "barcelona-92", 2)
    play(table, "carla", "quijote", 2)  # 1605 after 1978: wrong, carla draws guernica
    assert table.game.playoff and table.game.eliminated == ("carla",)
    assert table.game.hand("ana") == ("trafalgar",) and table.game.hand("ben") == ("armada",)
    assert reply(table.flip("carla-1"))[1] == "carla was eliminated when the play-off began"
    play(table, "ana", "trafalgar", 1)  # 1805 between 1492 and 1978: correct
    table.flip("ben-1")
    table.run_out("ben-1")  # ben's time runs out: ana alone placed a card correctly
    assert table.game.winner == "ana"
    scores = table.snapshot()["scores"]
    assert scores["ranking"] == ["ana", "ben", "carla"] and scores["players"]["carla"]["eliminated"]
    assert replays(table.session)


@pytest.mark.parametrize("seed", range(4))
def test_random_play_from_the_phone_menus_ends_with_scores_and_replays(seed):
    rng = random.Random(seed)
    table = SimulatedTable(
        game="timeline", players=("ana", "ben", "carla"), seed=seed, variant="hand-2", deck="hub"
    )
    for _ in range(400):
        if table.game.is_over:
            break
        player = table.game.to_move
        assert verdict(table.flip(f"{player}-1")) == "accepted"
        table.advance(THINK_S)
        if rng.random() < 0.1:
            table.run_out(f"{player}-1")
            continue
        menu = table.menu(player)
        # a player who knows some history: mostly the right gap
        right = [i for i in menu if _fits(table.game, i.action)]
        item = rng.choice(right if right and rng.random() < 0.7 else menu)
        assert isinstance(table.tap(player, item.action).decision, Decision)
        years = table.game.years()
        assert list(years) == sorted(years)
    assert table.game.is_over
    scores = table.snapshot()["scores"]
    assert scores["winners"] and set(scores["ranking"]) == {"ana", "ben", "carla"}
    assert replays(table.session)


def _fits(game, action):
    return fits(game.years(), action.gap, game.piles.cards[action.card].year)


def test_a_hub_restarted_from_the_log_on_disk_goes_on_with_the_game(tmp_path):
    path = tmp_path / "timeline.jsonl"
    table = SimulatedTable(two_player_setup(seed=11), log_path=path)
    for _ in range(3):
        player = table.game.to_move
        table.flip(f"{player}-1")
        table.tap(player, table.menu(player)[0].action)
    table.flip(f"{table.game.to_move}-1")
    table.close()
    resumed = SimulatedTable.resumed(EventLog.open_existing(path, fsync=False))
    assert resumed.state == table.state and resumed.ctx.turn_open


# --- the host ends the game early -----------------------------------------------------------------


def test_ending_early_ends_the_game_everywhere_without_a_winner_and_says_why(table):
    table.start()
    play(table, "ana", "granada", 0)
    table.flip("ben-1")  # ben's turn runs when the host ends the game
    assert table.snapshot()["scores"] is None
    outcome = table.clock_command("abort")
    [ended] = [e for e in outcome.events if isinstance(e, ev.ClockAborted)]
    assert not ended.unscored, "the game ends, scored as it stands"
    assert table.state.ended_by == "host" and not table.ctx.turn_open
    [stopped] = [e for e in outcome.events if isinstance(e, ev.GameStepped)]
    assert stopped.facts == (GameStopped(),) and stopped.actions == ()
    snap = table.snapshot()
    assert english(snap["view"]["summary"]) == "The game was ended early: nobody wins"
    assert english(snap["recent"][0]["text"]).startswith(
        "The game was ended early: in Timeline only the one player"
    )
    assert english(snap["view"]["panels"][3]["lines"])[-1].startswith("The game was ended early: in Timeline")
    scores = snap["scores"]
    assert scores["winners"] == [] and scores["ended_early"] and not scores["shared"]
    assert {p: s["cards_left"] for p, s in scores["players"].items()} == {"ana": 1, "ben": 2}
    assert english(snap["explanation"]) == "No winner."
    # nobody plays on: no buttons, taps and flips refused with the reason
    assert table.player_snapshot("ben")["menu"] == []
    refused = table.tap("ben", Place("barcelona-92", 0)).refusal
    assert isinstance(refused, Rejected) and str(refused.reason) == "The game was ended early"
    assert verdict(table.flip("ben-1")) == "rejected"
    assert replays(table.session)
    resumed = TableSession(table.setup, clock=table.clock, log=table.session.log)
    assert resumed.state == table.state


def test_ending_a_finished_game_early_changes_nothing(table):
    play(table, "ana", "granada", 0)
    play(table, "ben", "conquista-musulmana", 1)
    play(table, "ana", "dos-de-mayo", 1)
    play(table, "ben", "barcelona-92", 3)
    assert table.game.winner == "ana"
    referee = table.referee
    assert referee.game_ended_early(table.game, table.ctx) == Decision(table.game)
    assert referee.scores(table.game, table.ctx)["winners"] == ["ana"]
