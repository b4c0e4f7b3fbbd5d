"""Timeline on the hub: a real TableSession on a fake clock, sandtimers as turn timers."""

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.errors import ConfigError
from companion.games import referee_for
from companion.games.base import Rejected
from companion.games.timeline import GAME
from companion.games.timeline.table import TimelineReferee, gap_label, year_label
from companion.rules import Decision
from companion.rules.setup import Seat, default_setup, make_setup
from companion.rules.text import Text, from_json
from companion.table import events as ev
from companion.table.session import TableSession
from tests.conftest import logged_actions, replays

BOOT = "0a1b2c3d"
SAND_MS = 60_000

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


def msg(kind, **fields):
    return p.validate("event", dict({"v": 1, "kind": kind, "boot": BOOT}, **fields))


class Table:
    """A session plus the node side: hello, flips and run-outs with their sequence numbers."""

    def __init__(self, setup, referee=None, log=None):
        self.clock = FakeClock(start_s=100.0)
        self.setup = setup
        self.session = TableSession(setup, clock=self.clock, referee=referee, log=log)
        self.seq = {}
        for seat in setup.seats:
            self.session.node_message(
                seat.node, msg("hello", t_ms=self.ms(), sand_ms=SAND_MS, node_kind="sim", firmware="x")
            )

    def ms(self):
        return int(self.clock.now_s() * 1000)

    def _next(self, node):
        self.seq[node] = self.seq.get(node, 0) + 1
        return self.seq[node]

    def flip(self, node, upper=SAND_MS, lower=0):
        [reply] = self.session.node_message(
            node, msg("flip", seq=self._next(node), t_ms=self.ms(), upper_ms=upper, lower_ms=lower)
        )
        return reply.fields

    def empty(self, node):
        [reply] = self.session.node_message(node, msg("empty", seq=self._next(node), t_ms=self.ms()))
        return reply.fields

    def tap(self, player, **action):
        return self.session.player_action(player, action)

    @property
    def game(self):
        return self.session.state.game.game

    @property
    def table(self):
        return self.session.state.game

    def acted(self):
        return logged_actions(self.session)

    def replays(self):
        return replays(self.session)


def two_player_setup(*, turn_limit=True, timers=1, seed=7, variant=""):
    seats = tuple(Seat(name, i, f"{name}-{i}") for name in ("ana", "ben") for i in range(1, timers + 1))
    return make_setup(
        table="tl",
        game="timeline",
        players=("ana", "ben"),
        seats=seats,
        seed=seed,
        sand_s=SAND_MS / 1000,
        turn_limit=turn_limit,
        variant=variant,
    )


@pytest.fixture
def table():
    setup = two_player_setup()
    return Table(setup, TimelineReferee(setup, GAME.data, deal=DEAL))


def test_the_hub_finds_the_referee_and_deals_from_the_seed():
    setup = two_player_setup(seed=3)
    referee = referee_for(setup)
    assert isinstance(referee, TimelineReferee)
    state = referee.start(setup)
    assert [len(state.game.hand(p)) for p in ("ana", "ben")] == [4, 4] and len(state.game.timeline) == 1
    assert referee.start(setup) == state
    assert len(referee_for(two_player_setup(variant="hand-3")).start(setup).game.hand("ana")) == 3


@pytest.mark.parametrize("variant", ["hand-0", "speed", "hand-x"])
def test_an_unknown_variant_is_a_config_error(variant):
    with pytest.raises(ConfigError, match="hand-N"):
        referee_for(two_player_setup(variant=variant))


def test_a_table_the_game_cannot_start_is_a_config_error():
    with pytest.raises(ConfigError, match="2 to 8 players"):
        referee_for(default_setup("solo", players=1, game="timeline"))


def test_the_first_flip_of_the_first_player_starts_the_game(table):
    assert table.session.player_snapshot("ana")["menu"] == []
    assert (
        english(table.session.snapshot()["view"]["summary"]) == "Round 1: ana's turn: flip timer 1 to start"
    )
    assert table.flip("ana-1") == {"boot": BOOT, "seq": 1, "verdict": "accepted"}
    assert table.table.turn_open and table.acted() == [{"type": "turn_started", "player": "ana"}]
    assert english(table.session.snapshot()["view"]["summary"]) == "Round 1: ana is placing a card"


def test_a_flip_out_of_turn_is_refused_with_the_reason(table):
    reply = table.flip("ben-1")
    assert reply["verdict"] == "rejected"
    assert reply["reason"] == "It is ana's turn, not ben's"
    refusal = english(table.session.refusals["ben"])
    assert (refusal["reason"], refusal["rule"]) == (reply["reason"], "Gameplay")
    assert not table.table.turn_open and table.acted() == []


def test_a_second_flip_during_the_turn_restarts_nothing(table):
    table.flip("ana-1")
    reply = table.flip("ana-1", upper=30_000, lower=30_000)
    assert reply["verdict"] == "rejected" and "already running" in reply["reason"]
    assert table.acted() == [{"type": "turn_started", "player": "ana"}] and table.table.turn_open


def test_a_second_timer_of_the_player_is_not_a_turn_timer():
    setup = two_player_setup(timers=2)
    table = Table(setup, TimelineReferee(setup, GAME.data, deal=DEAL))
    reply = table.flip("ana-2")
    assert reply["verdict"] == "rejected"
    assert reply["reason"] == "Timer 2 is not used in Timeline: flip timer 1 to start your turn"
    assert table.flip("ana-1")["verdict"] == "accepted"


def test_a_placement_needs_the_turn_started_and_the_right_player(table):
    refused = table.tap("ana", type="place", card="granada", gap=0)
    assert (
        isinstance(refused, Rejected) and str(refused.reason) == "Flip your timer 1 to start your turn first"
    )
    table.flip("ana-1")
    refused = table.tap("ben", type="place", card="barcelona-92", gap=1)
    assert isinstance(refused, Rejected) and str(refused.reason) == "It is ana's turn, not ben's"
    refused = table.tap("ana", type="place", card="barcelona-92", gap=1)
    assert isinstance(refused, Rejected) and "no card 'barcelona-92'" in str(refused.reason)
    assert english(table.session.player_snapshot("ana")["refusal"]["reason"]).startswith("ana has no card")


def test_the_menu_names_cards_and_gaps_but_never_the_hidden_years(table):
    table.flip("ana-1")
    menu = english(table.session.player_snapshot("ana")["menu"])
    assert [(i["group"], i["label"]) for i in menu] == [
        ("Place Fall of Granada", "before 1978 The Spanish Constitution is approved"),
        ("Place Fall of Granada", "after 1978 The Spanish Constitution is approved"),
        ("Place Dos de Mayo uprising in Madrid", "before 1978 The Spanish Constitution is approved"),
        ("Place Dos de Mayo uprising in Madrid", "after 1978 The Spanish Constitution is approved"),
    ]
    assert menu[0]["action"] == {"type": "place", "card": "granada", "gap": 0}
    assert not any("1492" in i["label"] or "1808" in i["label"] for i in menu)
    assert table.session.player_snapshot("ben")["menu"] == []
    hand = english(table.session.player_snapshot("ana")["view"]["panels"][0])
    assert hand == {
        "kind": "lines",
        "title": "Your hand (2)",
        "lines": ["Fall of Granada", "Dos de Mayo uprising in Madrid"],
    }


def test_gap_labels_name_both_neighbours(table):
    table.flip("ana-1")
    table.tap("ana", type="place", card="granada", gap=0)
    table.flip("ben-1")
    table.tap("ben", type="place", card="conquista-musulmana", gap=0)
    assert str(gap_label(table.game, 0)) == "before 711 The Muslim conquest of the peninsula begins"
    assert (str(year_label(-218)), year_label(1492)) == ("218 BCE", "1492")
    assert (
        str(gap_label(table.game, 2))
        == "between 1492 Fall of Granada and 1978 The Spanish Constitution is approved"
    )


def test_a_phone_tap_places_the_card_and_passes_the_turn(table):
    table.flip("ana-1")
    step = table.tap("ana", type="place", card="granada", gap=0)
    assert isinstance(step, Decision)
    assert table.game.timeline == ("granada", "constitucion-1978")
    assert table.game.to_move == "ben" and not table.table.turn_open
    assert "ana placed Fall of Granada (1492): correct" in english(
        table.session.snapshot()["recent"][0]["text"]
    )
    view = english(table.session.snapshot()["view"])
    assert view["panels"][0]["rows"] == [
        [1492, "Fall of Granada"],
        [1978, "The Spanish Constitution is approved"],
    ]
    assert view["summary"] == "Round 1: ben's turn: flip timer 1 to start"
    assert table.flip("ana-1")["reason"] == "It is ben's turn, not ana's"


def test_a_wrong_placement_discards_and_draws(table):
    table.flip("ana-1")
    table.tap("ana", type="place", card="dos-de-mayo", gap=1)  # 1808 after 1978: wrong
    assert table.game.hand("ana") == ("granada", "armada")
    assert table.game.discard == ("dos-de-mayo",)
    assert english(table.session.snapshot()["view"]["panels"][2]["lines"]) == [
        f"Deck: {len(table.game.deck)} cards",
        "Discard pile: 1 card",
    ]


def test_the_sand_running_out_times_the_turn_out(table):
    table.flip("ana-1")
    table.clock.advance(60)
    assert table.empty("ana-1")["verdict"] == "accepted"
    assert table.acted()[-1] == {"type": "turn_timed_out", "player": "ana"}
    assert table.game.to_move == "ben" and not table.table.turn_open
    assert table.game.hand("ana") == ("granada", "dos-de-mayo") and table.game.timeline == (
        "constitucion-1978",
    )
    assert "ana's time ran out" in english(table.session.snapshot()["recent"][0]["text"])
    assert table.flip("ben-1")["verdict"] == "accepted"
    # the last player's time-out ends the round like a placement does
    table.clock.advance(60)
    table.empty("ben-1")
    assert table.game.round == 2 and table.game.to_move == "ana"
    assert table.replays()


def test_without_a_turn_limit_the_sand_is_only_a_reminder():
    setup = two_player_setup(turn_limit=False)
    table = Table(setup, TimelineReferee(setup, GAME.data, deal=DEAL))
    table.flip("ana-1")
    table.clock.advance(60)
    table.empty("ana-1")
    assert table.acted() == [{"type": "turn_started", "player": "ana"}]
    assert table.game.to_move == "ana" and table.table.turn_open
    assert isinstance(table.tap("ana", type="place", card="granada", gap=0), Decision)


def test_an_old_timer_running_out_during_another_turn_changes_nothing(table):
    table.flip("ana-1")
    table.tap("ana", type="place", card="granada", gap=0)
    table.flip("ben-1")
    table.clock.advance(60)
    table.empty("ana-1")
    assert table.game.to_move == "ben" and table.table.turn_open
    assert table.acted()[-1] == {"type": "turn_started", "player": "ben"}


def test_the_master_clock_only_bounds_the_session(table):
    table.session.start_clock()
    table.flip("ana-1")
    table.clock.advance(table.setup.clock_length_s + 1)
    table.session.tick()
    assert table.session.state.clock.phase == "expired"
    assert table.table.turn_open and table.game.to_move == "ana"
    assert "master clock has run out" in table.flip("ben-1")["reason"]


def play(table, player, card, gap):
    assert table.flip(f"{player}-1")["verdict"] == "accepted"
    step = table.tap(player, type="place", card=card, gap=gap)
    assert isinstance(step, Decision), step


def test_a_whole_game_to_its_end_with_scores_and_replay(table):
    assert table.session.snapshot()["scores"] is None
    play(table, "ana", "granada", 0)  # 1492 | 1978
    play(table, "ben", "conquista-musulmana", 1)  # 1492 | 711? wrong: discarded, ben draws armada (1588)
    assert table.game.hand("ben") == ("barcelona-92", "armada")
    play(table, "ana", "dos-de-mayo", 1)  # 1492 1808 1978: ana's hand is empty
    play(table, "ben", "barcelona-92", 3)  # correct, but ben still holds armada: ana alone emptied
    assert table.game.winner == "ana"
    assert english(table.session.snapshot()["view"]["summary"]) == "ana wins!"
    assert table.session.snapshot()["scores"] == {
        "winners": ["ana"],
        "shared": False,
        "ranking": ["ana", "ben"],
        "rounds": 2,
        "players": {
            "ana": {"total": 0, "cards_left": 0, "eliminated": False},
            "ben": {"total": 1, "cards_left": 1, "eliminated": False},
        },
    }
    assert table.session.player_snapshot("ben")["menu"] == []
    reply = table.flip("ben-1")
    assert reply["verdict"] == "rejected" and reply["reason"] == "The game is over: ana has already won"
    assert isinstance(table.tap("ben", type="place", card="armada", gap=0), Rejected)
    assert table.replays()


def test_a_restarted_hub_rebuilds_the_game_from_the_log(table):
    play(table, "ana", "granada", 0)
    table.flip("ben-1")
    # a new session over the same log folds the logged actions again through a fresh referee
    resumed = TableSession(
        table.setup,
        clock=table.clock,
        log=table.session.log,
        referee=TimelineReferee(table.setup, GAME.data, deal=DEAL),
    )
    assert resumed.state == table.session.state
    assert resumed.state.game.turn_open and resumed.state.game.game.to_move == "ben"


def test_a_playoff_is_refereed_through_the_session():
    setup = make_setup(
        table="tl",
        game="timeline",
        players=("ana", "ben", "carla"),
        seed=7,
        seats=tuple(Seat(n, 1, f"{n}-1") for n in ("ana", "ben", "carla")),
    )
    deal = {
        "hands": {"ana": ["granada"], "ben": ["barcelona-92"], "carla": ["quijote"]},
        "reference": "constitucion-1978",
        "draw_pile": ["guernica", "trafalgar", "armada"],
    }
    table = Table(setup, TimelineReferee(setup, GAME.data, deal=deal))
    play(table, "ana", "granada", 0)
    play(table, "ben", "barcelona-92", 2)
    play(table, "carla", "quijote", 2)  # 1605 after 1978: wrong, carla draws guernica
    assert table.game.playoff and table.game.eliminated == ("carla",)
    assert table.game.hand("ana") == ("trafalgar",) and table.game.hand("ben") == ("armada",)
    assert table.flip("carla-1")["reason"] == "carla was eliminated when the play-off began"
    play(table, "ana", "trafalgar", 1)  # 1805 between 1492 and 1978: correct
    table.flip("ben-1")
    table.clock.advance(60)
    table.empty("ben-1")  # ben's time runs out: ana alone emptied her hand
    assert table.game.winner == "ana"
    scores = table.session.snapshot()["scores"]
    assert scores["ranking"] == ["ana", "ben", "carla"] and scores["players"]["carla"]["eliminated"]
    assert table.replays()


@pytest.mark.parametrize("seed", range(4))
def test_random_play_from_the_phone_menus_ends_with_scores_and_replays(seed):
    import random

    rng = random.Random(seed)
    setup = make_setup(
        table="tl",
        game="timeline",
        players=("ana", "ben", "carla"),
        seed=seed,
        variant="hand-2",
        seats=tuple(Seat(n, 1, f"{n}-1") for n in ("ana", "ben", "carla")),
    )
    table = Table(setup)
    for _ in range(400):
        if table.game.is_over:
            break
        player = table.game.to_move
        assert table.flip(f"{player}-1")["verdict"] == "accepted"
        if rng.random() < 0.1:
            table.clock.advance(60)
            table.empty(f"{player}-1")
            continue
        menu = table.session.player_snapshot(player)["menu"]
        # a player who knows some history: mostly the right gap
        right = [i for i in menu if _fits(table.game, i["action"])]
        item = rng.choice(right if right and rng.random() < 0.7 else menu)
        assert isinstance(table.tap(player, **item["action"]), Decision)
        years = table.game.years()
        assert list(years) == sorted(years)
    assert table.game.is_over
    scores = table.session.snapshot()["scores"]
    assert scores["winners"] and set(scores["ranking"]) == {"ana", "ben", "carla"}
    assert table.replays()


def _fits(game, action):
    from companion.games.timeline import fits

    return fits(game.years(), action["gap"], game.cards[action["card"]].year)


def test_a_hub_restarted_from_the_log_on_disk_goes_on_with_the_game(tmp_path):
    from companion.table.log import EventLog

    setup = two_player_setup(seed=11)
    path = tmp_path / "timeline.jsonl"
    table = Table(setup, log=EventLog.for_new_game(setup, path, fsync=False))
    for _ in range(3):
        player = table.game.to_move
        table.flip(f"{player}-1")
        item = table.session.player_snapshot(player)["menu"][0]
        table.tap(player, **item["action"])
    table.flip(f"{table.game.to_move}-1")
    table.session.log.close()
    resumed = TableSession(setup, clock=table.clock, log=EventLog.open_existing(path, fsync=False))
    assert resumed.state == table.session.state and resumed.state.game.turn_open


# --- the host ends the game early -----------------------------------------------------------------


def test_ending_early_ends_the_game_everywhere_without_a_winner_and_says_why(table):
    table.session.start_clock()
    play(table, "ana", "granada", 0)
    table.flip("ben-1")  # ben's turn runs when the host ends the game
    assert table.session.snapshot()["scores"] is None
    ended = table.session.abort_clock()
    assert isinstance(ended, ev.ClockAborted) and not ended.unscored, "the game ends, scored as it stands"
    assert table.table.ended_early and not table.table.turn_open
    assert table.acted()[-1] == {"type": "ended_early"}
    snap = table.session.snapshot()
    assert english(snap["view"]["summary"]) == "The game was ended early: nobody wins"
    assert english(snap["recent"][0]["text"]).startswith(
        "The game was ended early: in Timeline only the one player"
    )
    scores = snap["scores"]
    assert scores["winners"] == [] and scores["ended_early"] and not scores["shared"]
    assert {p: s["cards_left"] for p, s in scores["players"].items()} == {"ana": 1, "ben": 2}
    assert english(snap["explanation"]) == "No winner."
    # nobody plays on: no buttons, taps and flips refused with the reason
    assert table.session.player_snapshot("ben")["menu"] == []
    refused = table.tap("ben", type="place", card="barcelona-92", gap=0)
    assert isinstance(refused, Rejected) and str(refused.reason) == "The game was ended early"
    assert table.flip("ben-1")["verdict"] == "rejected"
    assert table.replays()
    resumed = TableSession(table.setup, clock=table.clock, log=table.session.log)
    assert resumed.state == table.session.state


def test_ending_a_finished_game_early_changes_nothing(table):
    play(table, "ana", "granada", 0)
    play(table, "ben", "conquista-musulmana", 1)
    play(table, "ana", "dos-de-mayo", 1)
    play(table, "ben", "barcelona-92", 3)
    assert table.game.winner == "ana"
    referee = table.session.referee
    assert referee.game_ended_early(table.table) == Decision(table.table)
    assert referee.scores(table.table)["winners"] == ["ana"]
